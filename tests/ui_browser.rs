//! The web pages in a real browser: headless Chromium (the distribution's package, which
//! `.ci/run` installs) drives the real `frugald` with real stored runs. A repository made from
//! `examples/numeric` gets a first suite through the API; then `grade` changes what it returns
//! and the browser, refused a trigger without the token, logs in with it and triggers the
//! second commit from the repositories page. It watches the run's progress change on the live
//! page (server-sent events, no reload), then reads the commit's regression report (the changed
//! value), follows a chart point from the crate's history to its suite, and accepts the change.
//!
//! Chromium is found through `$FRUGAL_CHROMIUM` or on `PATH` (`chromium`, `chromium-browser`,
//! `google-chrome`). When it is missing the test fails and says how to install it, unless
//! `FRUGAL_UI_BROWSER=skip` says to skip. `FRUGAL_UI_SCREENSHOTS=<dir>` saves the history and
//! commit pages as `ui-history.png` and `ui-commit.png` there (docs/daemon.md's come from
//! `FRUGAL_UI_SCREENSHOTS=docs`).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use frugal_testkit::{Daemon, binaries, example_repo, git, run, wait_for};
use headless_chrome::protocol::cdp::Emulation;
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(400);

/// The Chromium binary, or `None` when the environment says to skip without one.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FRUGAL_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| which(name));
    if found.is_none() && std::env::var("FRUGAL_UI_BROWSER").as_deref() == Ok("skip") {
        eprintln!("ui_browser: SKIPPED: no Chromium and FRUGAL_UI_BROWSER=skip");
        return None;
    }
    Some(found.unwrap_or_else(|| {
        panic!(
            "Chromium is missing: install the Debian package `chromium` (`apt-get install -y \
             chromium`, as .ci/run does), set FRUGAL_CHROMIUM to its binary, or set \
             FRUGAL_UI_BROWSER=skip to skip this test locally"
        )
    }))
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn head(repo: &Path) -> String {
    run(git(repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string()
}

/// Evaluates a JavaScript expression in the page and returns its value.
fn js(tab: &Tab, expr: &str) -> Value {
    tab.evaluate(expr, false)
        .unwrap_or_else(|e| panic!("evaluate `{expr}`: {e}"))
        .value
        .unwrap_or(Value::Null)
}

fn text(tab: &Tab) -> String {
    js(tab, "document.body ? document.body.innerText : ''")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Waits until the page's URL satisfies `ok` and the document has loaded.
fn wait_page(tab: &Tab, what: &str, ok: impl Fn(&str) -> bool) {
    let t = Instant::now();
    loop {
        let url = js(tab, "location.href").as_str().unwrap_or("").to_string();
        let ready = js(tab, "document.readyState") == "complete";
        if ok(&url) && ready {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "waiting for {what}: at {url}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn open(tab: &Tab, url: &str) {
    tab.navigate_to(url).unwrap();
    tab.wait_until_navigated().unwrap();
    wait_page(tab, url, |u| u.starts_with(url));
}

/// Clicks the element and waits for the page it leads to.
fn click_to(tab: &Tab, selector: &str, what: &str, ok: impl Fn(&str) -> bool) {
    tab.wait_for_element(selector)
        .unwrap_or_else(|e| panic!("no `{selector}`: {e}\n{}", text(tab)))
        .click()
        .unwrap();
    wait_page(tab, what, ok);
}

fn screenshot(tab: &Tab, name: &str) {
    let Some(dir) = std::env::var_os("FRUGAL_UI_SCREENSHOTS") else {
        return;
    };
    let dir = frugal_testkit::workspace().join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    std::fs::write(dir.join(name), png).unwrap();
}

fn launch(chromium: PathBuf) -> Browser {
    let args: Vec<&OsStr> = vec![OsStr::new("--disable-dev-shm-usage")];
    let opts = LaunchOptions::default_builder()
        .path(Some(chromium))
        // The test runs as root in CI, where Chromium's own sandbox refuses to start.
        .sandbox(false)
        .window_size(Some((1100, 1500)))
        .idle_browser_timeout(Duration::from_secs(600))
        .args(args)
        .build()
        .unwrap();
    Browser::new(opts).unwrap_or_else(|e| panic!("start Chromium: {e}"))
}

#[test]
fn pages_work_in_a_real_browser_against_real_runs() {
    let Some(chromium) = chromium() else {
        return;
    };
    if !common::sandbox_holds("ui_browser") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        "[search]\nbudget = \"3000\"\n\n[executor]\nworkers = 2\n",
    );
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let d = Daemon::start(&binaries().frugald, &cfg, &tmp.path().join("state")).unwrap();
    let mut add = Command::new(&binaries().frugal);
    add.arg("--config")
        .arg(&cfg)
        .args(["repo", "add", "--no-hooks"])
        .arg(&repo);
    run(&mut add).unwrap();

    // A first suite through the API.
    let first = head(&repo);
    let body = format!("{{\"commit\": \"{first}\"}}");
    let r = d
        .post("/v1/repos/1/trigger", Some(&d.token), &body)
        .unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    d.wait_run(1, &first, JOB_LIMIT).unwrap();

    // `grade` now answers 'E' where it answered 'F': the second commit changes behaviour.
    let lib = repo.join("src/lib.rs");
    let src = std::fs::read_to_string(&lib).unwrap();
    let changed = src.replacen("        'F'\n", "        'E'\n", 1);
    assert_ne!(changed, src);
    std::fs::write(&lib, changed).unwrap();
    run(git(&repo).args(["commit", "-q", "-am", "grade E"])).unwrap();
    let second = head(&repo);

    let browser = launch(chromium);
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));
    let base = d.base.clone();

    // Repositories: the crate with its best suite; a trigger without the token is refused.
    open(&tab, &format!("{base}/ui"));
    let page = text(&tab);
    assert!(page.contains("numeric") && page.contains("goals"), "{page}");
    // The keyboard's first stop is the skip link to the content.
    tab.press_key("Tab").unwrap();
    assert_eq!(
        js(&tab, "document.activeElement.getAttribute('href')"),
        "#main"
    );
    click_to(
        &tab,
        "form[action$='/trigger'] button",
        "the refusal",
        |u| u.ends_with("/trigger"),
    );
    let page = text(&tab);
    assert!(page.contains("401") && page.contains("log in"), "{page}");
    let jobs = d.get("/v1/jobs").unwrap().json();
    assert_eq!(
        jobs.as_array().unwrap().len(),
        1,
        "only the API's job: {jobs}"
    );

    // Log in with the token, then trigger the second commit (HEAD) from the form.
    open(&tab, &format!("{base}/ui/login?next=/ui"));
    tab.wait_for_element("#token").unwrap().click().unwrap();
    tab.type_str(&d.token).unwrap();
    click_to(&tab, "form[action='/ui/login'] button", "the login", |u| {
        u.ends_with("/ui")
    });
    assert!(text(&tab).contains("Log out"), "{}", text(&tab));
    click_to(
        &tab,
        "form[action$='/trigger'] button",
        "the live page",
        |u| u.ends_with("/ui/live"),
    );

    // Live: the run's row appears and its progress changes without a reload.
    js(&tab, "window.__frugal_same_page = 1");
    let rows = "document.querySelector('#live-runs tbody').innerText";
    let first_seen = wait_for(
        "a run on the live page",
        JOB_LIMIT,
        Duration::from_millis(100),
        || {
            Ok(js(&tab, rows)
                .as_str()
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string))
        },
    )
    .unwrap();
    let later = wait_for(
        "the live run's progress to change",
        JOB_LIMIT,
        Duration::from_millis(100),
        || {
            Ok(js(&tab, rows)
                .as_str()
                .filter(|t| !t.trim().is_empty() && *t != first_seen)
                .map(str::to_string))
        },
    )
    .unwrap();
    assert_eq!(
        js(&tab, "window.__frugal_same_page"),
        1,
        "the page reloaded"
    );
    println!("live: `{first_seen}` then `{later}`");
    d.wait_run(1, &second, JOB_LIMIT).unwrap();

    // The commit: the changed value and the test body; its run's phases.
    open(&tab, &format!("{base}/ui/repos/1/commits/{second}"));
    let page = text(&tab);
    assert!(page.contains("behaviours changed"), "{page}");
    assert!(page.contains("- was ") && page.contains("+ now "), "{page}");
    assert!(page.contains("search") && page.contains("Phase"), "{page}");
    screenshot(&tab, "ui-commit.png");

    // The history: two suites; a chart point opens its suite.
    open(&tab, &format!("{base}/ui/repos/1/crates/numeric"));
    let points = js(
        &tab,
        "document.querySelectorAll('#coverage a.point').length",
    );
    assert_eq!(points, 2, "{}", text(&tab));
    assert_eq!(
        js(&tab, "document.querySelectorAll('#cost a.point').length"),
        2
    );
    screenshot(&tab, "ui-history.png");
    click_to(
        &tab,
        "#coverage a.point",
        "the suite of a chart point",
        |u| u.contains("/ui/suites/"),
    );
    let page = text(&tab);
    assert!(page.contains("Suite #") && page.contains("Tests"), "{page}");
    let suite_path = js(&tab, "location.pathname").as_str().unwrap().to_string();
    assert!(
        js(&tab, "document.querySelectorAll('#tests tbody tr').length")
            .as_u64()
            .is_some_and(|n| n > 0)
    );
    assert!(
        js(&tab, "document.querySelectorAll('pre.code .k').length")
            .as_u64()
            .is_some_and(|n| n > 0),
        "the source is highlighted"
    );
    let download = js(&tab, "document.querySelector('a[download]').href");
    let src = d
        .get(download.as_str().unwrap().trim_start_matches(base.as_str()))
        .unwrap();
    assert!(src.status == 200 && src.body.contains("#[test]"));

    // Accept the change from the commit page.
    open(&tab, &format!("{base}/ui/repos/1/commits/{second}"));
    click_to(
        &tab,
        "form[action$='/accept'] button",
        "the accepted report",
        |u| u.contains("/commits/"),
    );
    wait_for(
        "the acceptance",
        Duration::from_secs(10),
        Duration::from_millis(100),
        || Ok(text(&tab).contains("accepted").then_some(())),
    )
    .unwrap();
    let report = d
        .get(&format!("/v1/repos/1/commits/{second}/report"))
        .unwrap()
        .json();
    assert_eq!(report["gates"], false, "{report}");

    // On a phone's width every page fits: nothing but the scrolling tables is wider.
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width: 390,
        height: 844,
        device_scale_factor: 2.0,
        mobile: true,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .unwrap();
    for path in [
        "/ui".to_string(),
        "/ui/live".to_string(),
        "/ui/repos/1/crates/numeric".to_string(),
        format!("/ui/repos/1/commits/{second}"),
        suite_path,
    ] {
        open(&tab, &format!("{base}{path}"));
        let (scroll, width) = (
            js(&tab, "document.documentElement.scrollWidth"),
            js(&tab, "window.innerWidth"),
        );
        assert!(
            scroll.as_u64() <= width.as_u64(),
            "{path}: {scroll} px wide in {width}"
        );
    }

    // The badge.
    let badge = d.get("/ui/repos/1/badge.svg").unwrap();
    assert!(badge.status == 200 && badge.body.contains("frugal coverage"));
}
