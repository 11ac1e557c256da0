// Expands the command line's inputs: files as given, directories to the media files inside them.
import ClipKit
import Foundation

/// One input of a batch, and where its output goes relative to the output directory.
struct BatchInput: Sendable, Equatable {
    var url: URL
    /// The sub-directory of a directory input this file was found in ("" for files named on
    /// the command line, or at the top of a named directory): outputs mirror the input tree.
    var relativeDirectory: String
    /// Why this input cannot be processed, found while expanding (a directory with no media):
    /// reported as that input's failure without stopping the others.
    var problem: ClipKitError?
    /// Found by searching a directory given as input (so `-o` names a directory).
    var fromDirectory: Bool
    /// The path as given on the command line, for inputs named there.
    var given: String?

    init(url: URL, relativeDirectory: String = "", problem: ClipKitError? = nil, fromDirectory: Bool = false) {
        self.url = url
        self.relativeDirectory = relativeDirectory
        self.problem = problem
        self.fromDirectory = fromDirectory
    }

    /// The input's path relative to the directory it was found in, or as given: what `--shard` partitions by.
    var shardKey: String {
        guard fromDirectory else { return given ?? url.path }
        return relativeDirectory.isEmpty ? url.lastPathComponent : relativeDirectory + "/" + url.lastPathComponent
    }
}

/// What a scan found: the inputs, and how many files in directories were not media.
struct ScanResult {
    var inputs: [BatchInput] = []
    var ignored = 0
}

/// Expands directories into the media files in them, with a fixed policy for links: a link to
/// a directory is not followed, and a link to a file is followed only when the file lies under
/// the directory given (`followLinks` lifts both, with every directory visited once). Each file
/// is found once, however many names lead to it; `/proc`-like trees and link loops cannot make
/// the walk long, and the deadline (`--timeout`) bounds it too.
struct InputScanner {
    var recursive: Bool
    var followLinks = false
    var deadline = Deadline.none
    /// Directories not searched: the output directory when it lies inside an input directory,
    /// so a rerun does not take last run's outputs for inputs. Their bytes: Swift strings that
    /// differ only in Unicode normalisation compare equal, and those are two directories.
    var excluded: Set<[UInt8]> = []

    /// Files stay as given (checked later, one error each). A directory gives the media files in
    /// it, sorted by name: those named as videos or GIFs (one that does not open is that input's
    /// error, never skipped) and others libavformat recognises by content (`MediaProbe.kind`);
    /// other files are ignored and counted. With `recursive`, sub-directories too; a directory
    /// with no media, or one that cannot be read, gives an input carrying that `problem`. Hidden files and directories are skipped.
    func expand(_ paths: [String]) -> [BatchInput] {
        scan(paths).inputs
    }

    func scan(_ paths: [String]) -> ScanResult {
        var result = ScanResult()
        var inputs: [BatchInput] = []
        for path in paths {
            guard FileSystemPath.isDirectory(path) else {
                var input = BatchInput(url: URL(fileURLWithPath: path))
                input.given = path
                inputs.append(input)
                continue
            }
            var walk = Walk(root: FileSystemPath.resolvingLinks(path))
            let found: [BatchInput]
            do {
                found = try scan(URL(fileURLWithPath: path, isDirectory: true), relative: "", walk: &walk, depth: 0)
            } catch {
                inputs.append(BatchInput(url: URL(fileURLWithPath: path), problem: error as? ClipKitError
                    ?? .unreadable(path: path, reason: "\(error)"), fromDirectory: true))
                continue
            }
            result.ignored += walk.ignored
            if found.isEmpty {
                inputs.append(BatchInput(url: URL(fileURLWithPath: path), problem: .noFrames(path: path, reason: recursive
                    ? "no video or GIF files in this directory or below it"
                    : "no video or GIF files in this directory (add -r to search sub-directories)"), fromDirectory: true))
            }
            inputs += found
        }
        result.inputs = inputs
        return result
    }

    /// What one directory walk has seen: (device, inode) of directories and files.
    private struct Walk {
        let root: String
        var directories = Set<[UInt64]>()
        var files = Set<[UInt64]>()
        /// Regular files that are not media.
        var ignored = 0
    }

    /// The visible entries of a directory, sorted, in their lossless form (names that are not
    /// UTF-8 included: see `FileSystemPath`). Names equal as Swift strings (é composed and
    /// decomposed) are ordered by their bytes, whatever order readdir gave.
    /// Nil when the directory cannot be read.
    static func entries(of path: String) -> [String]? {
        FileSystemPath.contents(of: path)?.filter { $0.utf8.first != UInt8(ascii: ".") }.sorted {
            $0 < $1 || (!($1 < $0) && FileSystemPath.bytes($0).lexicographicallyPrecedes(FileSystemPath.bytes($1)))
        }
    }

    /// `files` (of one directory) less those clipkit made from a source beside them: a file
    /// that records a clipkit fingerprint (`ClipKitOutput.isFile`) and is named as another
    /// file there that records none, but for its extension and a `-N` (`thumb --count`):
    /// `clip.gif`, `clip.png`, `clip.webp`, `clip-2.png` beside `clip.mp4`. They are outputs of
    /// that source, written into the directory searched (`clipkit thumb .`, `-o` the input
    /// directory); as inputs they would write what the source writes (`clip.png` again).
    static func withoutOutputsOfSources(_ files: [BatchInput]) -> [BatchInput] {
        let stems = files.map { FileSystemPath.bytes($0.url.deletingPathExtension().lastPathComponent) }
        var named: [[UInt8]: [Int]] = [:]
        for (index, stem) in stems.enumerated() { named[stem, default: []].append(index) }
        var marked: [Int: Bool] = [:]
        func isOutput(_ index: Int) -> Bool {
            if let known = marked[index] { return known }
            let known = ClipKitOutput.isFile(files[index].url)
            marked[index] = known
            return known
        }
        return files.indices.filter { index in
            var sources = named[stems[index], default: []].filter { $0 != index }
            // `NAME-N` of `thumb --count`: NAME's.
            if let dash = stems[index].lastIndex(of: UInt8(ascii: "-")), dash > 0, dash + 1 < stems[index].count,
               stems[index][(dash + 1)...].allSatisfy({ (0x30...0x39).contains($0) }) {
                sources += named[Array(stems[index][..<dash]), default: []]
            }
            return sources.isEmpty || !isOutput(index) || sources.allSatisfy(isOutput)
        }.map { files[$0] }
    }

    /// Deeper trees than this are not searched (a loop through links, were they followed).
    static let maxDepth = 64

    private func scan(_ directory: URL, relative: String, walk: inout Walk, depth: Int) throws -> [BatchInput] {
        try deadline.check(directory.path)
        var info = stat()
        guard stat(FileSystemPath.cString(directory.path), &info) == 0, walk.directories.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted,
              depth <= Self.maxDepth else { return [] }
        var files: [BatchInput] = [], directories: [String] = []
        guard let names = Self.entries(of: directory.path) else {
            // Unreadable (no permission): that directory's failure, never skipped silently (its
            // files would be missing from the run, which would still pass).
            let problem = ClipKitError.unreadable(path: directory.path, reason: String(cString: strerror(errno)))
            if depth == 0 { throw problem }
            return [BatchInput(url: directory, relativeDirectory: relative, problem: problem, fromDirectory: true)]
        }
        for name in names {
            let url = directory.appendingPathComponent(name)
            var link = stat(), target = stat()
            guard lstat(FileSystemPath.cString(url.path), &link) == 0, stat(FileSystemPath.cString(url.path), &target) == 0 else { continue }
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            switch target.st_mode & S_IFMT {
            case S_IFDIR:
                if excluded.contains(FileSystemPath.bytes(url.standardizedFileURL.path)) { continue }
                // An earlier run's frames, storyboard or report is not searched for inputs.
                if (!isLink || followLinks) && recursive && !ClipKitOutput.isDirectory(url) { directories.append(name) }
            case S_IFREG:
                if isLink && !followLinks {
                    let real = FileSystemPath.resolvingLinks(url.path)
                    guard FileSystemPath.bytes(real).starts(with: FileSystemPath.bytes(walk.root) + [0x2F]) else { continue }
                }
                guard walk.files.insert([UInt64(target.st_dev), UInt64(target.st_ino)]).inserted else { continue }
                if MediaProbe.kind(of: url) == .other {
                    walk.ignored += 1
                } else {
                    files.append(BatchInput(url: url, relativeDirectory: relative, fromDirectory: true))
                }
            default:
                continue  // FIFOs, devices, sockets: never opened
            }
        }
        files = Self.withoutOutputsOfSources(files)
        if recursive {
            for name in directories {
                let sub = relative.isEmpty ? name : relative + "/" + name
                files += try scan(directory.appendingPathComponent(name, isDirectory: true), relative: sub, walk: &walk, depth: depth + 1)
            }
        }
        return files
    }
}
