// A named POSIX thread that is always joined: every pipeline stage runs on one.
import Foundation

/// One stage's thread. The name reaches the OS (`top -H`, gdb, /proc/PID/task/TID/comm), and
/// `join()` waits until the body has returned; the owner joins before the call that started the
/// thread returns, so no work outlives its caller.
final class StageThread: Sendable {
    private let handle: LockedBox<pthread_t?>

    /// Starts `body` on a new thread named `name` (the OS keeps the first 15 bytes) with an 8 MiB stack.
    init(name: String, _ body: sending @escaping () -> Void) {
        handle = LockedBox(nil)
        let context = Unmanaged.passRetained(Context(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            // Foundation passes the name of the current thread on to pthread_setname_np.
            Thread.current.name = String(decoding: context.name.utf8.prefix(15), as: UTF8.self)
            context.body()
            return nil
        }, context)
        if status != 0 {
            // No thread: run the body here so its queue is still finished and nobody waits forever.
            let context = Unmanaged<Context>.fromOpaque(context).takeRetainedValue()
            context.body()
            return
        }
        handle.withLock { $0 = thread }
    }

    /// Waits for the body to return. Safe to call more than once and from any thread but its own.
    func join() {
        guard let thread = handle.withLock({ value -> pthread_t? in
            defer { value = nil }
            return value
        }) else { return }
        pthread_join(thread, nil)
    }

    deinit { join() }

    private final class Context {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
