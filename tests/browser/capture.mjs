// A capture's every frame as Chromium shows it: each frame's cells (their data attributes), its
// narration, its code panels, whether it is wider than the page; the slider's keys; a question
// answered in the page; what each question frame shows before its reveal. Prints one JSON
// object; tests/browser/capture.rs judges it.
// Usage: node capture.mjs SHOTS_DIR WIDTH FILE.html...   (every frame, screenshots, keys)
//        node capture.mjs --asked FILE.html...            (the question frames only)
import { browser } from './lib.mjs';
import { pathToFileURL } from 'node:url';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

async function shot(page, path) {
  // Through CDP: page.screenshot waits on fonts that never settle in this headless build.
  const cdp = await page.context().newCDPSession(page);
  const r = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  writeFileSync(path, Buffer.from(r.data, 'base64'));
  await cdp.detach();
}

async function frames(page, file, width, shots) {
  const name = basename(file, '.html');
  await page.setViewportSize({ width, height: 900 });
  await page.goto(pathToFileURL(file).href + '#step=1');
  const count = await page.evaluate(() => document.querySelectorAll('section.frame').length);
  const chapters = await page.evaluate(() => ({
    ticks: [...document.querySelectorAll('#chapter-marks option')].map((o) => [+o.value, o.label]),
    buttons: [...document.querySelectorAll('button.chapter')].map((b) => [+b.dataset.step, b.textContent]),
  }));
  const out = [];
  for (let i = 1; i <= count; i++) {
    await page.evaluate((i) => { location.hash = '#step=' + i; }, i);
    await page.waitForFunction((i) => document.querySelector('section.frame.on')?.dataset.step === String(i), i);
    // Before the reveal: what a question frame shows above and beside its questions.
    const asked = await page.evaluate(askedNow);
    if (shots && asked) await shot(page, join(shots, `${name}-${width}-${String(i).padStart(2, '0')}-asked.png`));
    // Reveal the frame's questions ("show me") so its outcome is in view.
    await page.evaluate(() => document.querySelectorAll('section.frame.on .quiz .skip').forEach((b) => {
      if (!b.closest('.ask').hidden) b.click();
    }));
    const f = await page.evaluate(() => {
      const fr = document.querySelector('section.frame.on');
      const de = document.documentElement;
      return {
        step: +fr.dataset.step,
        mode: fr.dataset.mode,
        command: fr.querySelector('.cmd')?.textContent ?? '',
        narration: [...fr.querySelectorAll('.story, .say, .alert')].map((p) => p.textContent),
        cells: [...fr.querySelectorAll('g.cell')].map((g) => ({
          row: g.dataset.row,
          offset: g.dataset.offset,
          epoch: g.dataset.epoch,
          committed: g.dataset.committed,
          fate: g.dataset.fate,
          flag: g.dataset.flag ?? null,
          dashed: getComputedStyle(g.querySelector('rect')).strokeDasharray,
          txn: g.querySelector('.txn')?.dataset.txn ?? null,
        })),
        // Each picture's text alternative (its rows' marks: LSO, HW, LEO).
        titles: [...fr.querySelectorAll('.outcome .pic svg title')].map((t) => t.textContent),
        empty_rows: fr.querySelectorAll('svg text.empty').length,
        output: fr.querySelector('pre.out')?.textContent ?? '',
        panels: [...fr.querySelectorAll('.explain')].map((e) => [...e.querySelectorAll('b')].map((b) => b.textContent)),
        same_rounds: fr.querySelectorAll('.round.same').length,
        // The contrast frame's table as shown: one row of cell texts per mode.
        contrast: [...fr.querySelectorAll('table.contrast tr')].slice(1)
          .map((tr) => [...tr.cells].map((c) => c.innerText.trim())),
        // The why figures: a fetch's round trip, a recovery's lookup; the eras side by side.
        round_trip: [...fr.querySelectorAll('.outcome > figure.why svg.round-trip [data-mark]')]
          .map((t) => [t.dataset.mark, t.textContent]),
        lookup: [...fr.querySelectorAll('.outcome > figure.why svg.lookup [data-mark]')]
          .map((t) => [t.dataset.mark, t.textContent]),
        lookup_by: fr.querySelector('.outcome > figure.why svg.lookup')?.dataset.by ?? null,
        eras: [...fr.querySelectorAll('.eras .era')].filter((e) => e.checkVisibility()).map((e) => ({
          era: e.dataset.era,
          pictures: e.querySelectorAll('.pic svg').length,
          code: e.querySelectorAll('.explain b').length,
          lookup: e.querySelectorAll('svg.lookup').length,
        })),
        quizzes: fr.querySelectorAll('.quiz').length,
        veiled: fr.querySelectorAll('.veiled').length,
        scroll_width: de.scrollWidth,
        client_width: de.clientWidth,
        frame_scroll_width: fr.scrollWidth,
        frame_client_width: fr.clientWidth,
        // Each picture in view: its own width and whether it scrolls in its box.
        pictures: [...fr.querySelectorAll('.pic')].filter((p) => p.checkVisibility() && p.querySelector('svg'))
          .map((p) => [p.querySelector('svg').width.baseVal.value, p.scrollWidth > p.clientWidth]),
        // The smallest SVG text as drawn on the screen: its font size times the picture's scale.
        min_svg_text_px: Math.min(...[...fr.querySelectorAll('svg text')].filter((x) => x.checkVisibility())
          .map((x) => parseFloat(getComputedStyle(x).fontSize) * x.getScreenCTM().a)),
      };
    });
    f.asked = asked;
    const flagged = f.cells.some((c) => c.fate === 'acked-lost' || c.fate === 'acked-truncated');
    if (shots && (i === 1 || flagged || chapters.ticks.some(([n]) => n === i))) {
      await shot(page, join(shots, `${name}-${width}-${String(i).padStart(2, '0')}.png`));
    }
    out.push(f);
  }
  return { file: name, width, count, chapters, frames: out };
}

/** What the shown frame lets a learner read before any of its questions is revealed (`null`
 * when it asks nothing): the text of each visible part above the questions, the questions,
 * what is visible of the outcome block, the cells of the picture beside the questions and of
 * the previous frame, and the outcome's own texts (read from the hidden DOM) to look for. */
function askedNow() {
  const fr = document.querySelector('section.frame.on');
  if (!fr.querySelector('.quiz:not([data-revealed])')) return null;
  const seen = (e) => e.checkVisibility();
  const cellsOf = (root) => (root ? [...root.querySelectorAll('g.cell')] : []).map((g) => [
    g.dataset.row, g.dataset.offset, g.dataset.epoch, g.dataset.committed, g.dataset.fate].join(' '));
  const parts = [];
  for (const c of fr.children) {
    if (!seen(c)) continue;
    if (c.classList.contains('asking')) {
      for (const q of c.children) if (seen(q)) parts.push([q.className, q.classList.contains('before') ? '' : q.innerText]);
    } else {
      parts.push([c.className || c.tagName.toLowerCase(), c.innerText]);
    }
  }
  const prev = document.getElementById('step-' + (+fr.dataset.step - 1));
  const outcome = fr.querySelector('.outcome');
  return {
    parts,
    questions: [...fr.querySelectorAll('.quiz')].map((q) => ({
      question: q.querySelector('.q').textContent,
      truth: q.dataset.truth,
      kind: q.dataset.kind,
      verdict_shown: seen(q.querySelector('.verdict')),
      why_shown: seen(q.querySelector('.why')),
      why: q.querySelector('.why').textContent,
    })),
    outcome_shown: outcome ? seen(outcome) : false,
    visible_cells_outside_before: [...fr.querySelectorAll('g.cell')]
      .filter((g) => !g.closest('figure.before') && seen(g)).length,
    before_cells: cellsOf(fr.querySelector('figure.before')),
    before_svg_text_px: Math.min(...[...fr.querySelectorAll('figure.before svg text')].filter(seen)
      .map((x) => parseFloat(getComputedStyle(x).fontSize) * x.getScreenCTM().a)),
    prev_command: prev?.querySelector('.cmd')?.textContent ?? '',
    prev_cells: cellsOf(prev?.querySelector('.outcome .pic')),
    outcome_texts: outcome ? [...outcome.querySelectorAll('.note, .alert, pre.out, :scope > .say')]
      .flatMap((e) => e.textContent.split('\n')) : [],
  };
}

/** Only the question frames' view before the reveal, for many files (no screenshots). */
async function askedIn(page, file) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(pathToFileURL(file).href + '#step=1');
  const steps = await page.evaluate(() => [...document.querySelectorAll('section.frame')]
    .filter((f) => f.querySelector('.quiz')).map((f) => +f.dataset.step));
  const frames = [];
  for (const i of steps) {
    await page.evaluate((i) => { location.hash = '#step=' + i; }, i);
    await page.waitForFunction((i) => document.querySelector('section.frame.on')?.dataset.step === String(i), i);
    const f = await page.evaluate(askedNow);
    f.step = i;
    // Question 1 answered alone: what of each question shows then.
    f.after_first = await page.evaluate(() => {
      const fr = document.querySelector('section.frame.on');
      fr.querySelector('.quiz .skip').click();
      return [...fr.querySelectorAll('.quiz')].map((q) => ({
        shown: q.checkVisibility(),
        verdict_shown: q.querySelector('.verdict').checkVisibility(),
        why_shown: q.querySelector('.why').checkVisibility(),
      }));
    });
    f.command = await page.evaluate(() => document.querySelector('section.frame.on .cmd').textContent);
    frames.push(f);
  }
  return { file: basename(file, '.html'), frames };
}

/** One arrow key is one frame, with the slider focused and without; a question answered in
 * the page: a blank answer is asked again, a number is judged and the score moves. */
async function interact(page, file) {
  await page.setViewportSize({ width: 1280, height: 900 });
  // A fresh document: the frames pass may have revealed this very file's questions.
  await page.goto('about:blank');
  await page.goto(pathToFileURL(file).href + '#step=3');
  const pos = () => page.evaluate(() => document.getElementById('pos').textContent);
  const keys = [];
  await page.focus('#slider');
  await page.keyboard.press('ArrowRight');
  keys.push(await pos());
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('ArrowRight');
  keys.push(await pos());
  await page.keyboard.press('ArrowLeft');
  keys.push(await pos());
  // Home, End and Space (Shift+Space back) with nothing focused; Space with the slider focused.
  for (const k of ['End', 'Home', 'Space', 'Space', 'Shift+Space']) {
    await page.keyboard.press(k);
    keys.push(await pos());
  }
  await page.focus('#slider');
  await page.keyboard.press('Space');
  keys.push(await pos());
  await page.keyboard.press('End');
  keys.push(await pos());
  await page.evaluate(() => document.activeElement.blur());
  // The first frame with a number question.
  const step = await page.evaluate(() => {
    const q = document.querySelector('.quiz[data-kind="number"]:not([data-revealed])');
    return q ? +q.closest('section.frame').dataset.step : 0;
  });
  const quiz = { step };
  if (step) {
    await page.evaluate((i) => { location.hash = '#step=' + i; }, step);
    await page.waitForFunction((i) => document.querySelector('section.frame.on')?.dataset.step === String(i), step);
    const q = 'section.frame.on .quiz[data-kind="number"]';
    quiz.truth = await page.evaluate((q) => document.querySelector(q).dataset.truth, q);
    quiz.veiled_before = await page.evaluate(() => document.querySelectorAll('section.frame.on .veiled').length);
    await page.click(`${q} .reveal`);
    quiz.hint_on_blank = await page.evaluate((q) => document.querySelector(q + ' .hint').textContent, q);
    quiz.verdict_hidden_on_blank = await page.evaluate((q) => document.querySelector(q + ' .verdict').hidden, q);
    await page.fill(`${q} input`, quiz.truth);
    await page.keyboard.press('ArrowRight'); // typing in the answer never steps the frame
    quiz.pos_while_typing = await pos();
    await page.click(`${q} .reveal`);
    quiz.questions = await page.evaluate(() => document.querySelectorAll('section.frame.on .quiz').length);
    // Answered alone, question 1 tells nothing yet when another question follows it.
    quiz.why_hidden_after_first = await page.evaluate((q) => !document.querySelector(q + ' .why').checkVisibility(), q);
    quiz.veiled_after = await page.evaluate(() => document.querySelectorAll('section.frame.on .veiled').length);
    quiz.outcome_shown = await page.evaluate(() => document.querySelector('section.frame.on .outcome').checkVisibility());
    // The rest of the frame's questions skipped: every truth and why, the outcome unveiled.
    await page.evaluate(() => document.querySelectorAll('section.frame.on .quiz:not([data-revealed]) .skip')
      .forEach((b) => b.click()));
    quiz.verdict = await page.evaluate((q) => document.querySelector(q + ' .verdict').textContent, q);
    quiz.why = await page.evaluate((q) => document.querySelector(q + ' .why').textContent, q);
    quiz.why_hidden = await page.evaluate((q) => document.querySelector(q + ' .why').hidden, q);
    quiz.score = await page.evaluate(() => document.getElementById('score').textContent);
    quiz.veiled_final = await page.evaluate(() => document.querySelectorAll('section.frame.on .veiled').length);
    quiz.outcome_shown_final = await page.evaluate(() => document.querySelector('section.frame.on .outcome').checkVisibility());
  }
  return { keys, quiz };
}

// Like lib.mjs's main, but the exit waits until the (large) JSON is written to the pipe.
async function mainFlushed(body) {
  try {
    const out = await body();
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
  } catch (e) {
    process.stderr.write(`${e && e.stack ? e.stack : e}\n`, () => process.exit(1));
  }
}

mainFlushed(async () => {
  if (process.argv[2] === '--asked') {
    const b = await browser();
    try {
      const page = await b.newPage();
      const runs = [];
      for (const f of process.argv.slice(3)) runs.push(await askedIn(page, f));
      return { runs };
    } finally {
      await b.close();
    }
  }
  const [shots, width, ...files] = process.argv.slice(2);
  mkdirSync(shots, { recursive: true });
  const b = await browser();
  try {
    const page = await b.newPage();
    const runs = [];
    for (const f of files) runs.push(await frames(page, f, Number(width), shots));
    const interaction = await interact(page, files[0]);
    return { runs, interaction };
  } finally {
    await b.close();
  }
});
