// `klog lab`'s stuck-lso scene, played by clicking: the preset (stops on `klog txn` with the LSO
// held at the open transaction while the HW has moved on), a step back and forth through its
// frames, the admin abort, two fetch rounds (the LSO reaches the HW), and from the stuck frame
// again the producer's commit (a fork). Checks the page at 1280 and 400 px. Prints what the
// page showed and the script copied from it. Usage: node lab-lso.mjs URL SHOTS_DIR
import { main, withLab } from './lib.mjs';

main(async () => {
  const [url, shots] = process.argv.slice(2);
  return withLab(url, shots, async ({ page, errors, snap, idle, clicker, copy, state }) => {
    const seen = () => page.evaluate(() => {
      const lso = document.getElementById('lso');
      return {
        title: document.getElementById('frame-title').textContent,
        hint: document.getElementById('hint').textContent,
        note: document.getElementById('note').textContent,
        command: document.getElementById('command').textContent,
        output: document.getElementById('output').textContent,
        lso: lso.dataset.lso,
        hw: lso.dataset.hw,
        open: lso.dataset.open,
        lso_text: lso.innerText,
        lso_visible: lso.getClientRects().length > 0,
        picture_lso: Array.from(document.querySelectorAll('#picture svg text'), (t) => t.textContent)
          .filter((t) => t.includes('LSO')),
        open_cells: document.querySelectorAll('#picture .txn-open').length,
        txn_buttons: Array.from(document.querySelectorAll('#act-rows button[data-txn]'),
          (x) => ({ kind: x.dataset.txn, label: x.textContent, disabled: x.disabled })),
        explore_disabled: document.getElementById('explore').disabled,
        explore_off: document.getElementById('explore-off').textContent,
        error: document.getElementById('error').textContent,
        code: Array.from(document.querySelectorAll('#code .explain b'), (b) => b.textContent),
        code_source: Array.from(document.querySelectorAll('#code .explain .src'), (x) => x.textContent),
      };
    });
    const click = clicker(seen);
    const frame = (branch, f) => click(`#branches button[data-branch="${branch}"][data-frame="${f}"]`);
    const fetchAB = '#act-rows button[data-act="fetch"][data-leader="a"][data-follower="b"]';

    // 1. The preset, and each of its frames stepped through.
    const preset = await click('#preset-lso');
    await snap('preset');
    const presetState = await state();
    const { branch, frame: last } = presetState.view;
    const frames = [];
    for (let f = 0; f <= last; f++) frames.push(await frame(branch, f));
    await frame(branch, 4);
    await snap('frame-4-t1-t2');
    const stuck = await frame(branch, last);
    const presetScript = await copy();

    // 2. The admin abort, then fetch a → b until the HW covers its marker.
    const abort = await click('#act-rows button[data-txn="admin-abort"]');
    await snap('admin-abort');
    const fetch1 = await click(fetchAB);
    const fetch2 = await click(fetchAB);
    await snap('lso-at-hw');
    const abortState = await state();
    const abortScript = await copy();

    // 3. From the stuck frame again: the producer commits (a new branch), two fetch rounds.
    await frame(branch, last);
    const commit = await click('#act-rows button[data-txn="commit"]');
    await click(fetchAB);
    const committed = await click(fetchAB);
    const commitState = await state();

    // 3b. From the stuck frame again: the coordinator's timeout passes (it knows producer
    //     1000's transaction), two fetch rounds.
    await frame(branch, last);
    const timeout = await click('#act-rows button[data-txn="timeout"]');
    await click(fetchAB);
    const timedOut = await click(fetchAB);

    // 4. A phone's width on the stuck frame: the LSO line above the picture, nothing wider
    //    than the page.
    await frame(branch, last);
    await page.setViewportSize({ width: 400, height: 900 });
    const narrow = await page.evaluate(() => {
      const top = (id) => Math.round(document.getElementById(id).getBoundingClientRect().top + scrollY);
      return {
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        lso_top: top('lso'),
        picture_top: top('picture'),
        actions_top: top('actions'),
      };
    });
    await page.evaluate(() => scrollTo(0, 0));
    await snap('stuck-first-screen', false);
    return {
      errors, preset, frames, stuck, abort, fetch1, fetch2, commit, committed, timeout, timedOut, narrow,
      presetScript, abortScript,
      presetState: { view: presetState.view, replicas: presetState.replicas, branch_dir: presetState.branch_dir,
        transactions: presetState.branches[branch].transactions },
      abortState: { view: abortState.view, branch_dir: abortState.branch_dir },
      commitState: { view: commitState.view, branch_dir: commitState.branch_dir,
        parent: commitState.branches[commitState.view.branch].parent },
    };
  });
});
