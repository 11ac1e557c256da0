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
        // Every signal whose default action ends the process without a core dump (SIGUSR1,
        // SIGALRM... left their temp files too).
        for number in [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                removeUnfinishedOutputs()
                StandardStreams.removeDirectoryOnSignal()
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
