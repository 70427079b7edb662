"""The dashboard in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium) loads each page of a live pool, the figures it
shows are the daemons' own, and it updates without reloading. Its screenshots go to the
test's temporary directory, or to docs/img/ for docs/dashboard.md when FAIRPOOL_SCREENSHOTS
names that directory (a test run leaves the checkout as it found it)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from livepool import LivePool
from steady_pool import job_id, settled

webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="chromium and chromium-driver are not installed (.ci/run installs them)",
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1500",
)


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: FAIRPOOL_SCREENSHOTS (e.g. docs/img) or a temporary one."""
    chosen = os.environ.get("FAIRPOOL_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(DRIVER)))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser, pool: LivePool, path: str) -> None:
    browser.get(f"{pool.url}/dashboard/{path}")
    _until(
        browser,
        lambda: int(browser.find_element("tag name", "body").get_attribute("data-updates")) >= 1,
    )


def _until(browser, condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"waited {seconds} s in {browser.current_url}")


def _figure(browser, key: str) -> str:
    return browser.find_element("css selector", f'[data-figure="{key}"]').text


def _rows(browser, table: str) -> list[list[str]]:
    rows = browser.find_elements("css selector", f"#table-{table} tbody tr")
    return [[td.text for td in row.find_elements("tag name", "td")] for row in rows]


def test_each_page_shows_the_pools_figures(steady_pool: LivePool, browser, images: Path) -> None:
    pool = steady_pool

    _open(browser, pool, "")
    jobs = Counter(job["JobStatus"] for job in pool.jobs())
    assert _figure(browser, "slots") == str(len(pool.slots()))
    assert (_figure(browser, "idle"), _figure(browser, "running"), _figure(browser, "held")) == (
        str(jobs[1]),
        str(jobs[2]),
        str(jobs[5]),
    )
    submitters = {ad["Name"]: ad for ad in pool.get("/collector/ads", type="Submitter")["ads"]}
    shown = {row[0]: row[1:] for row in _rows(browser, "submitters")}
    assert shown == {
        name: [str(ad["RunningJobs"]), str(ad["IdleJobs"]), str(ad["HeldJobs"])]
        for name, ad in submitters.items()
    }
    groups = {row[0] for row in _rows(browser, "groups")}
    assert groups == {"group_physics", "<none>"}
    browser.save_screenshot(str(images / "dashboard-pool.png"))

    _open(browser, pool, "fairshare")
    accountant = pool.accountant()
    rows = {row[0]: row for row in _rows(browser, "fairshare")}
    assert set(rows) == {name for name in accountant if "@" in name}
    for name, row in rows.items():
        assert float(row[3]) == accountant[name]["factor"]  # Factor
        assert float(row[2]) == pytest.approx(float(row[1]) * float(row[3]), rel=1e-3)  # EUP
    quotas = {row[0]: row for row in _rows(browser, "quotas")}
    assert float(quotas["group_physics"][1]) == 1.0  # GROUP_QUOTA_group_physics
    browser.save_screenshot(str(images / "dashboard-fairshare.png"))

    _open(browser, pool, "negotiator")
    cycles = pool.get("/negotiator/cycles", last=1000)["cycles"]
    assert int(_figure(browser, "cycles")) == len(cycles)
    idle = {row[0]: row[2] for row in _rows(browser, "idle")}
    carol = pool.jobs('AcctGroupUser == "carol"')[0]
    carol_id = job_id(carol)
    assert idle[carol_id] == "no match found"
    browser.save_screenshot(str(images / "dashboard-negotiator.png"))

    browser.find_element("link text", carol_id).click()  # the job's own page
    _until(browser, lambda: browser.current_url.endswith(f"/dashboard/job/{carol_id}"))
    _until(browser, lambda: _figure(browser, "status") == "Idle")
    analysis = browser.find_element("css selector", '[data-text="analysis"]').text
    assert "Reason for last match failure: no match found" in analysis
    assert "TARGET.Memory >= RequestMemory" in analysis
    browser.save_screenshot(str(images / "dashboard-job.png"))


def test_the_simulation_page(steady_pool: LivePool, browser, images: Path) -> None:
    pool = steady_pool
    _open(browser, pool, "simulations")
    (row,) = _rows(browser, "simulations")
    folder = Path(row[1])
    browser.find_element("link text", "0").click()
    _until(browser, lambda: browser.current_url.endswith("/dashboard/simulation/0"))
    _until(browser, lambda: _figure(browser, "hours") != "")
    summary = json.loads((folder / "summary.json").read_text())
    assert _figure(browser, "hours") == "6"  # simulated hours
    assert _figure(browser, "utilisation") == f"{100 * summary['pool']['utilisation']:.1f}%"
    shown = {r[0]: r for r in _rows(browser, "simsubmitters")}
    assert set(shown) == set(summary["submitters"])
    for name, figures in summary["submitters"].items():
        assert int(shown[name][3]) == figures["completed"]
    browser.save_screenshot(str(images / "dashboard-simulation.png"))


def test_the_page_updates_without_reloading(steady_pool: LivePool, browser) -> None:
    pool = steady_pool
    _open(browser, pool, "")
    browser.execute_script("window.fairpoolMarker = 42;")
    held = pool.jobs("JobStatus == 5")[0]
    name = job_id(held)
    pool.post("/schedd/act", {"action": "release", "jobs": [name]})
    try:
        _until(browser, lambda: _figure(browser, "held") == "0", 30)
        assert browser.execute_script("return window.fairpoolMarker") == 42  # no reload
    finally:  # back to the steady state the other tests rely on
        pool.post("/schedd/act", {"action": "hold", "jobs": [name]})
        pool.wait(settled(pool), 30, "the held job again")
    _until(browser, lambda: _figure(browser, "held") == "1", 30)
