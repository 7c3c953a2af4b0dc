// `klog lab`'s tiers scene, played by clicking: the Tiers preset (the whole of `klog demo tiers`
// replayed as frames), each frame stepped through (its command, note, output, code panel, the
// remote tier in its picture), the script copied from the last frame, and the last frame at
// 400 px. Prints what the page showed. Usage: node lab-tiers.mjs URL SHOTS_DIR
import { main, withLab } from './lib.mjs';

main(async () => {
  const [url, shots] = process.argv.slice(2);
  return withLab(url, shots, async ({ page, errors, snap, idle, clicker, copy, state }) => {
    const seen = () => page.evaluate(() => ({
      title: document.getElementById('frame-title').textContent,
      hint: document.getElementById('hint').textContent,
      note: document.getElementById('note').textContent,
      command: document.getElementById('command').textContent,
      output: document.getElementById('output').textContent,
      error: document.getElementById('error').textContent,
      code: Array.from(document.querySelectorAll('#code .explain b'), (x) => x.textContent),
      code_text: document.getElementById('code').textContent,
      remote_cells: document.querySelectorAll('#picture [data-row^="remote"]').length,
      picture_text: Array.from(document.querySelectorAll('#picture svg text'), (t) => t.textContent).join('\n'),
      unserved: Array.from(document.querySelectorAll('#picture [data-fate="unserved"]'),
        (c) => c.getAttribute('data-offset')),
      in_remote: document.querySelectorAll('#recovery [data-fate="in-remote"]').length,
      explore_disabled: document.getElementById('explore').disabled,
      explore_off: document.getElementById('explore-off').textContent,
    }));
    const click = clicker(seen);
    const frame = (branch, f) => click(`#branches button[data-branch="${branch}"][data-frame="${f}"]`);

    // 1. The preset, then each of its frames stepped through.
    const preset = await click('#preset-tiers');
    await snap('preset');
    const presetState = await state();
    const { branch, frame: last } = presetState.view;
    const frames = [];
    for (let f = 0; f <= last; f++) {
      frames.push(await frame(branch, f));
      if (frames[f].command.startsWith('klog recover $LAB/a')) await snap(`frame-${f}-restart`);
    }
    const end = await frame(branch, last);
    const script = await copy();

    // 2. A phone's width on the last frame: nothing wider than the page.
    await page.setViewportSize({ width: 400, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await snap('last-frame');
    return {
      errors, preset, frames, end, script, overflow,
      presetState: { view: presetState.view, replicas: presetState.replicas, branch_dir: presetState.branch_dir },
    };
  });
});
