//! perf_event counters behind a small trait, and the choice of which source gives each figure.
//!
//! The trait exists so the choice can be tested without the machine's PMU: many CI VMs expose
//! software events but no hardware ones (`perf_event_open` fails with ENOENT), and there the
//! software path is the normal path.

use std::io;

use crate::report::{CostBasis, CounterAvailability, Metric, Source};

/// A perf_event counter the profiler asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PerfEvent {
    /// Retired instructions, user space only (hardware).
    Instructions,
    /// CPU cycles, user space only (hardware).
    Cycles,
    /// Branch mispredictions, user space only (hardware).
    BranchMisses,
    /// Cache misses as perf's generic event counts them (usually the last level), user space
    /// only (hardware).
    CacheMisses,
    /// CPU time the task ran, in nanoseconds (software).
    TaskClock,
    /// Page faults (software).
    PageFaults,
    /// Context switches (software).
    ContextSwitches,
}

impl PerfEvent {
    /// Every event, hardware first.
    pub const ALL: [PerfEvent; 7] = [
        PerfEvent::Instructions,
        PerfEvent::Cycles,
        PerfEvent::BranchMisses,
        PerfEvent::CacheMisses,
        PerfEvent::TaskClock,
        PerfEvent::PageFaults,
        PerfEvent::ContextSwitches,
    ];

    /// Whether the event needs the PMU (hardware counters, often missing in VMs) rather than
    /// being counted by the kernel in software.
    pub fn is_hardware(self) -> bool {
        matches!(
            self,
            PerfEvent::Instructions
                | PerfEvent::Cycles
                | PerfEvent::BranchMisses
                | PerfEvent::CacheMisses
        )
    }

    /// Where a figure from this event comes from: hardware or software perf_event.
    pub fn source(self) -> Source {
        if self.is_hardware() {
            Source::HardwarePerf
        } else {
            Source::SoftwarePerf
        }
    }

    /// The report metric this event measures.
    pub fn metric(self) -> Metric {
        match self {
            PerfEvent::Instructions => Metric::Instructions,
            PerfEvent::Cycles => Metric::Cycles,
            PerfEvent::BranchMisses => Metric::BranchMisses,
            PerfEvent::CacheMisses => Metric::CacheMisses,
            PerfEvent::TaskClock => Metric::TaskClockNs,
            PerfEvent::PageFaults => Metric::PageFaults,
            PerfEvent::ContextSwitches => Metric::ContextSwitches,
        }
    }
}

/// A counter's value with the kernel's enabled/running times (they differ when the kernel
/// multiplexed hardware counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterValue {
    /// The raw count the kernel read, not scaled for multiplexing.
    pub count: u64,
    /// Nanoseconds the counter was enabled.
    pub time_enabled: u64,
    /// Nanoseconds the counter was actually on the PMU; less than `time_enabled` when the kernel
    /// multiplexed it.
    pub time_running: u64,
}

impl CounterValue {
    /// The count scaled up for the time the counter was not on the PMU; `None` if it never was
    /// while enabled (a counter neither enabled nor running counted exactly: its count as is).
    pub(crate) fn scaled(self) -> Option<f64> {
        if self.time_running == 0 {
            // Software counters of a process that never ran report 0/0: the count is exact.
            return (self.time_enabled == 0).then_some(self.count as f64);
        }
        let factor = self.time_enabled as f64 / self.time_running as f64;
        Some(self.count as f64 * factor.max(1.0))
    }
}

/// An open counter; readable after the observed process exited.
pub trait OpenCounter {
    /// Reads the counter's value with its enabled and running times.
    fn read(&mut self) -> io::Result<CounterValue>;
}

/// Opens counters. [`PerfEventBackend`] is the real one.
pub trait CounterBackend {
    /// Opens `event` on `pid` counting from its next exec on, including threads it starts.
    /// `pid` 0 means the calling process, counting at once (used to probe availability).
    fn open(&self, event: PerfEvent, pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>>;
}

/// perf_event counters from the `perf-event` crate.
///
/// Hardware events count user space only (what the test's code does, and allowed at
/// `perf_event_paranoid` 2); software events include the kernel, else context switches (taken
/// in the kernel) would read 0. When the kernel refuses that, user-only is tried.
#[derive(Debug, Default)]
pub struct PerfEventBackend;

struct PerfCounter(perf_event::Counter);

impl OpenCounter for PerfCounter {
    fn read(&mut self) -> io::Result<CounterValue> {
        let cat = self.0.read_count_and_time()?;
        Ok(CounterValue {
            count: cat.count,
            time_enabled: cat.time_enabled,
            time_running: cat.time_running,
        })
    }
}

impl PerfEventBackend {
    fn build(event: PerfEvent, pid: libc::pid_t, kernel: bool) -> io::Result<perf_event::Counter> {
        use perf_event::events::{Hardware, Software};
        let builder = perf_event::Builder::new();
        let mut builder = match event {
            PerfEvent::Instructions => builder.kind(Hardware::INSTRUCTIONS),
            PerfEvent::Cycles => builder.kind(Hardware::CPU_CYCLES),
            PerfEvent::BranchMisses => builder.kind(Hardware::BRANCH_MISSES),
            PerfEvent::CacheMisses => builder.kind(Hardware::CACHE_MISSES),
            PerfEvent::TaskClock => builder.kind(Software::TASK_CLOCK),
            PerfEvent::PageFaults => builder.kind(Software::PAGE_FAULTS),
            PerfEvent::ContextSwitches => builder.kind(Software::CONTEXT_SWITCHES),
        };
        builder = if pid == 0 {
            builder.observe_self()
        } else {
            builder.observe_pid(pid)
        };
        builder.exclude_kernel(!kernel);
        // Threads the test starts (libtest runs a test on its own thread) count too.
        builder.inherit(true);
        if pid != 0 {
            builder.enable_on_exec(true);
        }
        builder.build()
    }
}

impl CounterBackend for PerfEventBackend {
    fn open(&self, event: PerfEvent, pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>> {
        let counter = if event.is_hardware() {
            Self::build(event, pid, false)?
        } else {
            match Self::build(event, pid, true) {
                Ok(c) => c,
                Err(e) if is_permission(&e) => Self::build(event, pid, false)?,
                Err(e) => return Err(e),
            }
        };
        Ok(Box::new(PerfCounter(counter)))
    }
}

fn is_permission(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM))
}

/// Says in words why `perf_event_open` failed.
pub(crate) fn explain_open_error(event: PerfEvent, e: &io::Error) -> String {
    let what = match e.raw_os_error() {
        Some(libc::ENOENT) if event.is_hardware() => {
            "the kernel exposes no hardware PMU for this event (ENOENT; usual on VMs)".to_string()
        }
        Some(libc::ENOENT) => "the kernel does not know this event (ENOENT)".to_string(),
        Some(libc::ENODEV) | Some(libc::EOPNOTSUPP) => {
            format!("the PMU does not support this event ({e})")
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unknown".into());
            format!("permission denied ({e}); kernel.perf_event_paranoid = {paranoid}")
        }
        _ => format!("perf_event_open failed: {e}"),
    };
    format!("{:?} unavailable: {what}", event)
}

/// Which counters open on this machine: each event opened once on the profiler itself.
pub(crate) fn probe(backend: &dyn CounterBackend) -> Vec<(PerfEvent, Result<(), String>)> {
    PerfEvent::ALL
        .iter()
        .map(|&event| {
            let result = backend
                .open(event, 0)
                .map(drop)
                .map_err(|e| explain_open_error(event, &e));
            (event, result)
        })
        .collect()
}

/// What to measure and from where, decided once per run from the probe.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    /// Events to open on every test process.
    pub events: Vec<PerfEvent>,
    /// Events that failed the probe, with the reason; their figures are reported unavailable.
    pub unavailable: Vec<(PerfEvent, String)>,
    /// Page faults from wait4 (minflt + majflt) because the software counter is missing.
    pub page_faults_from_wait4: bool,
    /// Context switches from wait4 (nvcsw + nivcsw) because the software counter is missing.
    pub context_switches_from_wait4: bool,
    /// `None` when every hardware event opened, else the first reason.
    pub hardware_unavailable: Option<String>,
    pub cost_basis: CostBasis,
}

impl Plan {
    /// The availability table of the report.
    pub fn availability(&self) -> Vec<CounterAvailability> {
        PerfEvent::ALL
            .iter()
            .map(|&event| CounterAvailability {
                metric: event.metric(),
                source: event.source(),
                unavailable: self
                    .unavailable
                    .iter()
                    .find(|(e, _)| *e == event)
                    .map(|(_, reason)| reason.clone()),
            })
            .collect()
    }
}

/// Chooses sources: perf where it opened, wait4 as fallback where wait4 has the same figure,
/// and the cost basis: cachegrind instructions (deterministic) when valgrind runs, else hardware
/// instructions, else software task-clock, else wait4 user CPU time.
pub(crate) fn plan(probed: &[(PerfEvent, Result<(), String>)], valgrind: bool) -> Plan {
    let mut events = Vec::new();
    let mut unavailable = Vec::new();
    for (event, result) in probed {
        match result {
            Ok(()) => events.push(*event),
            Err(reason) => unavailable.push((*event, reason.clone())),
        }
    }
    let has = |e: PerfEvent| events.contains(&e);
    let hardware_unavailable = unavailable
        .iter()
        .find(|(e, _)| e.is_hardware())
        .map(|(_, reason)| reason.clone());
    let cost_basis = if valgrind {
        CostBasis {
            metric: Metric::Instructions,
            source: Source::Cachegrind,
        }
    } else if has(PerfEvent::Instructions) {
        CostBasis {
            metric: Metric::Instructions,
            source: Source::HardwarePerf,
        }
    } else if has(PerfEvent::TaskClock) {
        CostBasis {
            metric: Metric::TaskClockNs,
            source: Source::SoftwarePerf,
        }
    } else {
        CostBasis {
            metric: Metric::UserCpuNs,
            source: Source::Wait4,
        }
    };
    Plan {
        page_faults_from_wait4: !has(PerfEvent::PageFaults),
        context_switches_from_wait4: !has(PerfEvent::ContextSwitches),
        events,
        unavailable,
        hardware_unavailable,
        cost_basis,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine like the build machines: hardware events fail with ENOENT.
    struct NoPmu;

    struct Fixed(u64);

    impl OpenCounter for Fixed {
        fn read(&mut self) -> io::Result<CounterValue> {
            Ok(CounterValue {
                count: self.0,
                time_enabled: 1,
                time_running: 1,
            })
        }
    }

    impl CounterBackend for NoPmu {
        fn open(&self, event: PerfEvent, _pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>> {
            if event.is_hardware() {
                Err(io::Error::from_raw_os_error(libc::ENOENT))
            } else {
                Ok(Box::new(Fixed(7)))
            }
        }
    }

    /// A bare-metal machine: everything opens.
    struct FullPmu;

    impl CounterBackend for FullPmu {
        fn open(&self, _event: PerfEvent, _pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>> {
            Ok(Box::new(Fixed(7)))
        }
    }

    /// perf_event forbidden altogether.
    struct NoPerf;

    impl CounterBackend for NoPerf {
        fn open(&self, _event: PerfEvent, _pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>> {
            Err(io::Error::from_raw_os_error(libc::EACCES))
        }
    }

    #[test]
    fn without_pmu_software_figures_are_used_and_hardware_is_reported_missing() {
        let plan = plan(&probe(&NoPmu), false);
        assert_eq!(
            plan.events,
            vec![
                PerfEvent::TaskClock,
                PerfEvent::PageFaults,
                PerfEvent::ContextSwitches
            ]
        );
        let reason = plan.hardware_unavailable.as_deref().unwrap();
        assert!(reason.contains("ENOENT"), "{reason}");
        assert_eq!(
            plan.cost_basis,
            CostBasis {
                metric: Metric::TaskClockNs,
                source: Source::SoftwarePerf
            }
        );
        assert!(!plan.page_faults_from_wait4 && !plan.context_switches_from_wait4);
        let table = plan.availability();
        let instructions = table
            .iter()
            .find(|c| c.metric == Metric::Instructions)
            .unwrap();
        assert!(instructions.unavailable.is_some());
        let task_clock = table
            .iter()
            .find(|c| c.metric == Metric::TaskClockNs)
            .unwrap();
        assert_eq!(task_clock.unavailable, None);
    }

    #[test]
    fn with_pmu_hardware_instructions_rank_tests() {
        let plan = plan(&probe(&FullPmu), false);
        assert_eq!(plan.events.len(), PerfEvent::ALL.len());
        assert_eq!(plan.hardware_unavailable, None);
        assert_eq!(plan.cost_basis.source, Source::HardwarePerf);
    }

    #[test]
    fn valgrind_wins_the_cost_basis_when_asked_for() {
        let plan = plan(&probe(&NoPmu), true);
        assert_eq!(
            plan.cost_basis,
            CostBasis {
                metric: Metric::Instructions,
                source: Source::Cachegrind
            }
        );
    }

    #[test]
    fn without_any_perf_wait4_fills_in() {
        let plan = plan(&probe(&NoPerf), false);
        assert!(plan.events.is_empty());
        assert!(plan.page_faults_from_wait4 && plan.context_switches_from_wait4);
        assert_eq!(plan.cost_basis.source, Source::Wait4);
        assert!(plan.unavailable[0].1.contains("permission denied"));
    }

    #[test]
    fn multiplexed_counts_are_scaled_and_unscheduled_ones_are_missing() {
        let v = CounterValue {
            count: 100,
            time_enabled: 4,
            time_running: 2,
        };
        assert_eq!(v.scaled(), Some(200.0));
        let never = CounterValue {
            count: 0,
            time_enabled: 5,
            time_running: 0,
        };
        assert_eq!(never.scaled(), None);
    }
}
