//! Memory for the big tables (the transposition table, the mate table): how much may be asked
//! for, and the error when it cannot be had.

/// Largest table accepted (MiB); bigger requests are refused before trying.
pub const MAX_TABLE_MIB: usize = 1 << 20;

/// Why a table could not be sized as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocError {
    pub mib: usize,
    /// The machine's memory (MiB) when the size was refused for exceeding it.
    pub machine_mib: Option<usize>,
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "cannot allocate a {} MiB hash table", self.mib)?;
        if let Some(m) = self.machine_mib {
            write!(f, " (more than the {m} MiB of memory here)")?;
        }
        Ok(())
    }
}

/// A table size (MiB, at least 1) that may be allocated: at most `MAX_TABLE_MIB`
/// and no more than the machine has. Checked before allocating, because an overcommitting
/// system would grant the memory and kill the process when the table is first written.
pub fn checked_table_mib(mib: usize) -> Result<usize, AllocError> {
    let mib = mib.max(1);
    if mib > MAX_TABLE_MIB {
        return Err(AllocError { mib, machine_mib: None });
    }
    match memory_limit_mib() {
        Some(limit) if mib > limit => Err(AllocError { mib, machine_mib: Some(limit) }),
        _ => Ok(mib),
    }
}

/// Memory this process may use in MiB: the machine's total, or a smaller container (cgroup)
/// limit. `None` where it cannot be read (not Linux).
pub fn memory_limit_mib() -> Option<usize> {
    fn read(path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    let total = read("/proc/meminfo").and_then(|s| {
        let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024)
    });
    // cgroup v2, then v1; "max" or an absurd v1 value means no limit.
    let cgroup = read("/sys/fs/cgroup/memory.max")
        .or_else(|| read("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map(|b| b >> 20);
    let mib = match (total, cgroup) {
        (Some(t), Some(c)) => t.min(c),
        (t, c) => t.or(c)?,
    };
    usize::try_from(mib).ok()
}
