// `klog lab` played by clicking: KIP-101 scenario 1 under hw (the acked m2 is lost when a is
// elected), then back to the crash frame, the explorer asked from there, and the other branch
// (recover under kip279: nothing lost). Prints what each frame showed and both copied scripts.
// Usage: node lab.mjs URL SHOTS_DIR
import { main, withLab } from './lib.mjs';

main(async () => {
  const [url, shots] = process.argv.slice(2);
  return withLab(url, shots, async ({ page, errors, snap, idle }) => {
    const frames = [];
    const seen = async () => page.evaluate(() => {
      const v = document.getElementById('verdict');
      return {
        title: document.getElementById('frame-title').textContent,
        command: document.getElementById('command').textContent,
        lost: v.dataset.lost,
        acked: v.dataset.acked,
        leader: v.dataset.leader,
        verdict: v.textContent,
        model_fits: document.getElementById('model').dataset.fits,
        model: document.getElementById('model').textContent,
        code_panels: document.querySelectorAll('#code .explain').length,
        ran_lines: document.querySelectorAll('#code .explain pre b').length,
        pictures: document.querySelectorAll('#picture svg').length,
        recovery_pictures: document.querySelectorAll('#recovery svg').length,
        error: document.getElementById('error').textContent,
        page_wider_than_viewport: document.documentElement.scrollWidth > window.innerWidth,
      };
    });
    const click = async (selector, name) => {
      await page.click(selector);
      await idle();
      const f = await seen();
      f.name = name;
      frames.push(f);
      if (f.error) throw new Error(`${name}: ${f.error}`);
      await snap(name);
      return f;
    };
    const copy = async () => {
      await page.click('#copy');
      await page.waitForFunction(() => document.getElementById('copied').textContent !== '');
      try {
        return { text: await page.evaluate(() => navigator.clipboard.readText()), from: 'clipboard' };
      } catch (e) {
        return { text: await page.inputValue('#script'), from: 'textarea' };
      }
    };
    const act = (sel) => `#act-rows button${sel}`;
    await click(act('[data-act="elect"][data-replica="b"]'), 'elect-b');
    await click(act('[data-act="append"][data-replica="b"]'), 'append-m1');
    await click(act('[data-act="fetch"][data-leader="b"][data-follower="a"]'), 'fetch-1');
    await click(act('[data-act="fetch"][data-leader="b"][data-follower="a"]'), 'fetch-2');
    await click(act('[data-act="append"][data-replica="b"]'), 'append-m2');
    await click(act('[data-act="fetch"][data-leader="b"][data-follower="a"]'), 'fetch-3');
    await click(act('[data-act="fetch"][data-leader="b"][data-follower="a"]'), 'fetch-4');
    const crash = await click(act('[data-act="crash"][data-replica="a"][data-power-loss="false"]'), 'crash-a');
    await click(act('[data-act="recover"][data-follower="a"][data-leader="b"][data-mode="hw"]'), 'recover-a-hw');
    await click(act('[data-act="crash"][data-replica="b"][data-power-loss="false"]'), 'crash-b');
    await page.uncheck('#act-rows input[data-isr="b"]');
    const electHw = await click(act('[data-act="elect"][data-replica="a"]'), 'elect-a-hw');
    const lastHw = await click(act('[data-act="append"][data-replica="a"]'), 'append-m3-hw');
    const hwScript = await copy();

    // Back to the crash frame (branch 1, frame 8): the explorer from there, then the other way.
    await click('#branches button[data-branch="0"][data-frame="8"]', 'back-to-crash');
    await page.selectOption('#explore-mode', 'hw');
    await page.click('#explore');
    await page.waitForFunction(() => document.getElementById('explore-result').dataset.state === 'done', null, { timeout: 30000 });
    const explorer = await page.evaluate(() => ({
      found: document.getElementById('explore-result').dataset.found,
      text: document.getElementById('explore-result').textContent,
      steps: Array.from(document.querySelectorAll('#explore-steps li')).map((l) => l.textContent),
    }));
    await snap('explorer');
    await click(act('[data-act="recover"][data-follower="a"][data-leader="b"][data-mode="kip279"]'), 'recover-a-kip279');
    await click(act('[data-act="crash"][data-replica="b"][data-power-loss="false"]'), 'crash-b-2');
    await page.uncheck('#act-rows input[data-isr="b"]');
    const elect279 = await click(act('[data-act="elect"][data-replica="a"]'), 'elect-a-kip279');
    const last279 = await click(act('[data-act="append"][data-replica="a"]'), 'append-m3-kip279');
    const kip279Script = await copy();
    const branches = await page.evaluate(() => Array.from(document.querySelectorAll('#branches ol')).map((ol) => ol.querySelectorAll('li').length));
    const state = await page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get('token');
      return (await fetch('/api/state', { headers: { 'X-Klog-Token': token } })).json();
    });
    // A phone's width: the page reflows; no frame scrolls sideways.
    await page.setViewportSize({ width: 400, height: 900 });
    const narrow = [];
    for (const f of [0, 8, 11, 12]) {
      await page.click(`#branches button[data-branch="0"][data-frame="${f}"]`);
      await page.waitForFunction((n) => document.getElementById('frame-title').textContent.includes(`frame ${n} `), f);
      narrow.push(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth));
      await snap(`frame-${f}`);
    }
    return {
      narrow, frames, crash, electHw, lastHw, elect279, last279, explorer, branches, errors,
      hw_script: hwScript, kip279_script: kip279Script,
      branch_dirs: state.branches.length, kip279_dir: state.branch_dir, dir: state.dir,
    };
  });
});
