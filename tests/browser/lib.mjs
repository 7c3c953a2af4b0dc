// Shared by the browser tests: Debian's Chromium driven by playwright-core, nothing downloaded.
// Each test script is run by tests/browser/main.rs (cargo test --test browser) as `node tests/browser/<name>.mjs ARGS...`;
// it prints one JSON object on stdout (what the page showed) and the Rust test judges it.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

export const CHROMIUM = process.env.KLOG_CHROMIUM || '/usr/bin/chromium';

/** A headless browser with the flags that keep it quiet, local and fast. */
export async function browser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
}

/** Print the result for the Rust side and exit; any thrown error exits 1 with its message. */
export async function main(body) {
  try {
    const out = await body();
    // Exit once the whole answer is written: a pipe takes 64 KiB at a time.
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
  } catch (e) {
    process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  }
}

/**
 * The lab page at `url` in a fresh 1280 x 900 page that may use the clipboard, once its branches
 * are listed, handed to `body({ page, errors, snap, idle })`; the browser closes when it ends.
 * `errors` collects the page's uncaught errors; `snap(name, fullPage = true)` saves a screenshot
 * `NN-<width>px-<name>.png` in `shots` (numbered in order; fullPage false: the first screen);
 * `idle()` waits until the page's last action is done; `clicker(seen)`, `copy()` and `state()`
 * below.
 */
export async function withLab(url, shots, body) {
  mkdirSync(shots, { recursive: true });
  const b = await browser();
  try {
    const context = await b.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForSelector('#branches li');
    let shot = 0;
    const snap = async (name, fullPage = true) => {
      const w = page.viewportSize().width;
      await page.screenshot({ path: `${shots}/${String(++shot).padStart(2, '0')}-${w}px-${name}.png`, fullPage });
    };
    const idle = () => page.waitForFunction(() => !document.body.dataset.busy);
    // A click on `selector`, then what `seen()` reads of the page once it is idle (a frame the
    // lab answered with an error throws).
    const clicker = (seen) => async (selector) => {
      await page.click(selector);
      await idle();
      const f = await seen();
      if (f.error) throw new Error(`${selector}: ${f.error}`);
      return f;
    };
    // The script the Copy button puts on the clipboard.
    const copy = async () => {
      await page.evaluate(() => { document.getElementById('copied').textContent = ''; });
      await page.click('#copy');
      await page.waitForFunction(() => document.getElementById('copied').textContent !== '');
      return page.evaluate(() => navigator.clipboard.readText());
    };
    // The lab's whole state, as its API gives it to the page.
    const state = () => page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get('token');
      return (await fetch('/api/state', { headers: { 'X-Klog-Token': token } })).json();
    });
    return await body({ page, errors, snap, idle, clicker, copy, state });
  } finally {
    await b.close();
  }
}
