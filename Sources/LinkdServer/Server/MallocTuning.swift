#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// How glibc's malloc is set up for the daemon: how many arenas its threads share, and from what size an allocation
/// gets pages of its own.
///
/// **Arenas.** glibc gives a thread that meets contention an arena of its own, up to eight per core, and memory freed
/// in one arena is never reused by another: a daemon whose event loops, task pool and database threads all allocate
/// keeps tens of megabytes more resident than it uses. Measured over a million links (`scripts/million-bench.sh`,
/// docs/benchmarks.md): 295 MB resident after the runs with glibc's default, 241 MB with two arenas, at the same
/// rates.
///
/// **Large allocations.** glibc maps an allocation of 128 KiB or more on its own, and gives it back when it is freed,
/// but raises that threshold to the size of each such block freed, up to 32 MiB: after the first flush of counted
/// openings, the flush's megabyte-sized batches and sorted copies, and the buffer's dictionary as it grows, came
/// from the heap, where the small allocations made between two flushes kept their pages from going back. Under a
/// crawler's load over a million links the resident size rose by 40–60 MB between two flushes; with the threshold
/// fixed at 256 KiB, by 25–30 MB (docs/benchmarks.md, "Memory between two flushes").
///
/// `MALLOC_ARENA_MAX` and `MALLOC_MMAP_THRESHOLD_` in the environment, when set, win.
public enum MallocTuning {
    /// The arenas `linkd serve` allows.
    public static let arenas: Int32 = 2
    /// The size from which `linkd serve`'s allocations are mapped on their own, and unmapped when freed.
    public static let mmapThreshold: Int32 = 256 * 1024

    /// Applies `arenas` and `mmapThreshold` (nothing where malloc is not glibc's). Call it before the threads that
    /// allocate start.
    public static func apply() {
        #if canImport(Glibc)
        if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(M_ARENA_MAX, arenas) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold) }
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
