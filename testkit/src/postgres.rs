//! A real PostgreSQL server for tests: Debian's `initdb` and `pg_ctl` into a temp dir, listening
//! only on a unix socket in that dir (no port to collide with), run as an unprivileged user
//! when the tests run as root (PostgreSQL refuses root). No fallback: without PostgreSQL the
//! caller gets an error saying how to install it.
//!
//! A server stops when its [`Postgres`] drops, and every server still running stops when the
//! test process exits (an `atexit` handler): one kept in a `static` for a whole test binary is
//! never dropped, and would otherwise outlive the tests.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, Once};

use anyhow::{Context, Result, bail};

/// The uid and gid the server runs as when the tests are root (`nobody`).
const NOBODY: u32 = 65534;

/// Servers running now: their `pg_ctl` and data dir, and whether to run it as [`NOBODY`].
static RUNNING: Mutex<Vec<(PathBuf, PathBuf, bool)>> = Mutex::new(Vec::new());

/// Stops every server still in [`RUNNING`]; registered with `atexit` by the first start.
extern "C" fn stop_all_at_exit() {
    let servers = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for (pg_ctl, data, as_nobody) in servers {
        let mut c = Command::new(pg_ctl);
        if as_nobody {
            use std::os::unix::process::CommandExt;
            c.uid(NOBODY).gid(NOBODY);
        }
        let _ = c
            .arg("-D")
            .arg(&data)
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(dir) = data.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A running PostgreSQL cluster in a temp dir; stopped and removed on drop.
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// Whether the server runs as [`NOBODY`] (the tests are root).
    as_nobody: bool,
}

/// Where Debian's PostgreSQL programs are: the newest `/usr/lib/postgresql/<v>/bin`, else the
/// directory of `initdb` on PATH.
fn bin_dir() -> Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for d in std::env::split_paths(&path) {
        if d.join("initdb").exists() && d.join("pg_ctl").exists() {
            return Ok(d);
        }
    }
    bail!(
        "PostgreSQL's initdb and pg_ctl were not found: install Debian's `postgresql` package \
         (`apt-get install -y postgresql`; `./test` does it) and run the tests again"
    )
}

impl Postgres {
    /// Creates a cluster and starts it; waits until it accepts connections.
    pub fn start() -> Result<Postgres> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("frugal-pg-")
            .tempdir()
            .context("make the PostgreSQL temp dir")?;
        let as_nobody = unsafe { libc::geteuid() } == 0;
        if as_nobody {
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
            chown(dir.path())?;
        }
        let pg = Postgres {
            dir,
            bin,
            as_nobody,
        };
        let data = pg.data();
        pg.run(
            "initdb",
            &[
                "-D",
                path_str(&data)?,
                "-U",
                "frugal",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        pg.start_server()?;
        static AT_EXIT: Once = Once::new();
        AT_EXIT.call_once(|| {
            // SAFETY: registers a plain function with the C runtime; it runs once at exit.
            unsafe { libc::atexit(stop_all_at_exit) };
        });
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push((
            pg.bin.join("pg_ctl"),
            pg.data(),
            pg.as_nobody,
        ));
        Ok(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The socket directory (also the temp dir).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// A connection string for database `db` (`postgres` always exists), as frugald's
    /// `[store] url` takes it.
    pub fn url(&self, db: &str) -> String {
        format!(
            "host={} port=5432 user=frugal dbname={db}",
            self.dir.path().display()
        )
    }

    /// Creates database `db` (each test or node set gets one of its own).
    pub fn create_db(&self, db: &str) -> Result<()> {
        self.run(
            "createdb",
            &[
                "-h",
                path_str(self.dir.path())?,
                "-p",
                "5432",
                "-U",
                "frugal",
                db,
            ],
        )
    }

    /// Runs SQL through `psql` on database `db`; its output.
    pub fn psql(&self, db: &str, sql: &str) -> Result<String> {
        let out = self
            .command("psql")
            .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(self.dir.path())
            .args(["-p", "5432", "-U", "frugal", "-d", db, "-c", sql])
            .output()
            .context("run psql")?;
        if !out.status.success() {
            bail!("psql {sql}: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Starts the server (again, after [`Postgres::stop`]).
    pub fn start_server(&self) -> Result<()> {
        let data = self.data();
        let log = self.dir.path().join("server.log");
        let opts = format!(
            "-k {} -c listen_addresses='' -p 5432 -c fsync=off -c max_connections=200",
            self.dir.path().display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                path_str(&data)?,
                "-l",
                path_str(&log)?,
                "-o",
                &opts,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
    }

    /// Stops the server at once (`-m immediate`: clients see their connections drop, as when
    /// the database host dies).
    pub fn stop(&self) -> Result<()> {
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", path_str(&data)?, "-m", "immediate", "-w", "stop"],
        )
    }

    fn command(&self, prog: &str) -> Command {
        let mut c = Command::new(self.bin.join(prog));
        if !self.bin.join(prog).exists() {
            c = Command::new(prog);
        }
        if self.as_nobody {
            use std::os::unix::process::CommandExt;
            // std drops supplementary groups when root sets a uid.
            c.uid(NOBODY).gid(NOBODY);
        }
        c.env_remove("PGDATA")
            .env("LC_ALL", "C")
            .current_dir(self.dir.path());
        c
    }

    fn run(&self, prog: &str, args: &[&str]) -> Result<()> {
        let out = self
            .command(prog)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("run PostgreSQL's {prog}"))?;
        if !out.status.success() {
            let log =
                std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
            bail!(
                "{prog} {}: {}{}\n{log}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.stop();
        let data = self.data();
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(_, d, _)| *d != data);
    }
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str().context("a temp dir path that is not UTF-8")
}

fn chown(p: &Path) -> Result<()> {
    std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY))
        .with_context(|| format!("give {} to uid {NOBODY}", p.display()))
}
