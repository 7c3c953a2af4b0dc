import { browser, main } from './lib.mjs';
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
main(async () => {
  const [file, width, out] = process.argv.slice(2);
  const b = await browser();
  const page = await b.newPage({ viewport: { width: Number(width), height: 900 } });
  await page.goto(pathToFileURL(file).href + (process.argv[5]||''));
  const cdp = await page.context().newCDPSession(page);
  const r = await cdp.send('Page.captureScreenshot', { format: 'png' });
  writeFileSync(out, Buffer.from(r.data, 'base64'));
  await b.close();
  return {};
});
