// Removes temp outputs and exits on SIGINT/SIGTERM/SIGHUP (and the other terminating signals), so an interrupted run leaves no partial file.
import ClipKit
import Dispatch
import Foundation

enum Signals {
    /// Handles the signals on a dispatch queue rather than in a signal handler, where taking
    /// the registry's lock would not be safe.
    /// Returns the signal sources, which must be kept alive for the run.
    static func installCleanup() -> [DispatchSourceSignal] {
        var sources: [DispatchSourceSignal] = []
        // Over a file-size limit (ulimit -f), write() should fail with EFBIG, reported and
        // cleaned up like a full disk, instead of the process dying mid-file.
        signal(SIGXFSZ, SIG_IGN)
        // A closed stdout (`--json | head -c1`) is an EPIPE write error, handled where reports are
        // printed, not a signal that kills the batch mid-file.
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "clipkit.signals")
        // The other signals whose default action ends the process (SIGUSR1, SIGALRM... left
        // their temp files), and SIGXCPU, which `ulimit -t` sends. (Not SIGPROF: a dispatch
        // source never saw it, so it was swallowed.)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPWR, SIGXCPU] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                removeUnfinishedOutputs()
                StandardStreams.removeDirectoryOnSignal()
                // And the output directories it made that hold nothing now, as a run that ends
                // does (`gif clip.mp4 -o new/sub/` stopped by SIGTERM left `new/sub/`).
                CreatedDirectories.removeEmpty()
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
