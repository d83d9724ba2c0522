#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// How many malloc arenas the daemon's threads share.
///
/// glibc's malloc gives a thread that meets contention an arena of its own, up to eight per core, and memory freed in
/// one arena is never reused by another: a daemon whose event loops, task pool and database threads all allocate
/// keeps tens of megabytes more resident than it uses. Measured over a million links (`scripts/million-bench.sh`,
/// docs/benchmarks.md): 295 MB resident after the runs with glibc's default, 241 MB with two arenas, at the same
/// rates. `MALLOC_ARENA_MAX` in the environment, when set, wins.
public enum MallocArenas {
    /// The arenas `linkd serve` allows.
    public static let daemonLimit: Int32 = 2

    /// Limits the arenas to `arenas`, unless `MALLOC_ARENA_MAX` is set (nothing where malloc is not glibc's).
    public static func limit(to arenas: Int32 = daemonLimit) {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = mallopt(M_ARENA_MAX, arenas)
        #endif
    }

    /// Gives the free memory inside malloc's heaps back to the system (`malloc_trim(0)`: the free pages of every
    /// arena, not only the heap's top). Called after work that allocated and freed much at once.
    public static func trim() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
