// A directory entry's name as the kernel holds it: bytes, for tests that check names independently of ClipKit.
#if canImport(Glibc)
import Glibc
#endif

public enum DirectoryEntry {
    /// The bytes of `entry`'s name, read in place up to its NUL: a record is only as long as its
    /// name, so copying the declared 256-byte `d_name` would read past it.
    public static func name(_ entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
        let field = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self)
        return Array(UnsafeRawBufferPointer(start: field, count: strlen(field)))
    }
}
