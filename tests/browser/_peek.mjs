import { browser } from './lib.mjs';
import { pathToFileURL } from 'node:url';
const [file, w, h, ...steps] = process.argv.slice(2);
const b = await browser();
const page = await b.newPage();
await page.setViewportSize({ width: +w, height: +h });
for (const st of steps) {
  const [n, act] = st.split(':');
  await page.goto(pathToFileURL(file).href + '#step=' + n);
  await page.waitForTimeout(100);
  if (act === 'skip') await page.evaluate(() => document.querySelectorAll('section.frame.on .quiz .skip').forEach((b) => b.click()));
  if (act === 'one') await page.evaluate(() => document.querySelector('section.frame.on .quiz .skip').click());
  const cdp = await page.context().newCDPSession(page);
  const r = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  (await import('node:fs')).writeFileSync(`/tmp/shots/${n}-${act||'x'}.png`, Buffer.from(r.data, 'base64'));
}
await b.close();
