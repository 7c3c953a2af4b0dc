// Shared by the browser tests: Debian's Chromium driven by playwright-core, nothing downloaded.
// Each test script is run by tests/browser/main.rs (cargo test --test browser) as `node tests/browser/<name>.mjs ARGS...`;
// it prints one JSON object on stdout (what the page showed) and the Rust test judges it.
import { chromium } from 'playwright-core';

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
