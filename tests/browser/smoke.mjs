// The harness itself: a capture page opens in Chromium at a given width and reports its frames.
// Usage: node smoke.mjs FILE.html WIDTH
import { browser, main } from './lib.mjs';
import { pathToFileURL } from 'node:url';

main(async () => {
  const [file, width] = process.argv.slice(2);
  const b = await browser();
  try {
    const page = await b.newPage({ viewport: { width: Number(width), height: 800 } });
    await page.goto(pathToFileURL(file).href);
    return await page.evaluate(() => ({
      frames: document.querySelectorAll('section.frame').length,
      title: document.title,
    }));
  } finally {
    await b.close();
  }
});
