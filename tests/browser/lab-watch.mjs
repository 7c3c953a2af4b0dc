// `klog lab`'s way in, played by clicking: the Watch preset (stops where a's HW lags b's, with a
// line of what to watch for), the quiz (asked before the click's result is shown), the Watch's
// ending (crash a, recover it under hw, crash b, elect a, restart b), the button that forks the
// frame under hw | kip101 | kip279 side by side, and the explorer's counterexample replayed by
// one click. Checks the page at 1280 and 400 px. Prints what the page showed and the scripts
// copied from it. Usage: node lab-watch.mjs URL SHOTS_DIR
import { main, withLab } from './lib.mjs';

main(async () => {
  const [url, shots] = process.argv.slice(2);
  return withLab(url, shots, async ({ page, errors, snap, idle, clicker, copy, state }) => {
    const seen = () => page.evaluate(() => {
      const v = document.getElementById('verdict');
      return {
        title: document.getElementById('frame-title').textContent,
        hint: document.getElementById('hint').textContent,
        command: document.getElementById('command').textContent,
        output: document.getElementById('output').textContent,
        lost: v.dataset.lost,
        acked: v.dataset.acked,
        leader: v.dataset.leader,
        pictures: document.querySelectorAll('#picture svg').length,
        picture: document.getElementById('picture').innerHTML,
        error: document.getElementById('error').textContent,
        quiz_shown: !document.getElementById('quiz').hidden,
        question: document.getElementById('quiz-question').textContent,
        choices: Array.from(document.querySelectorAll('#quiz-choices button'), (x) => x.textContent),
        result: document.getElementById('quiz-result').textContent,
        stage_text: document.getElementById('stage').innerText,
      };
    });
    const click = clicker(seen);
    const act = (sel) => `#act-rows button${sel}`;

    // 1. The preset.
    const preset = await click('#preset');
    await snap('preset');
    const presetState = await state();

    // 2. The quiz: asked with the frame before still shown; the answer only after a choice.
    await page.check('#quiz-toggle');
    const quiz = [];
    const ask = async (selector, pick) => {
      const before = await seen();
      await click(selector);
      const asked = await seen();
      await snap(`quiz-${quiz.length + 1}`);
      const choice = pick === 'first' ? asked.choices[0] : pick;
      await page.click(`#quiz-choices button[data-choice="${choice}"]`);
      const after = await seen();
      const result = await page.evaluate(() => {
        const r = document.getElementById('quiz-result');
        return { answer: r.dataset.answer, chosen: r.dataset.chosen, right: r.className === 'right' };
      });
      quiz.push({ before, asked, after, result });
    };
    await ask(act('[data-act="crash"][data-replica="a"][data-power-loss="false"]'), '0');
    await ask(act('[data-act="recover"][data-follower="a"][data-leader="b"][data-mode="hw"]'), '2');
    await page.uncheck('#quiz-toggle');

    // 3. The Watch's ending under hw, by clicks.
    await click(act('[data-act="crash"][data-replica="b"][data-power-loss="false"]'));
    await page.uncheck('#isr-row input[data-isr="b"]');
    const elect = await click(act('[data-act="elect"][data-replica="a"]'));
    const append = await click(act('[data-act="append"][data-replica="a"]'));
    const restart = await click(act('[data-act="recover"][data-follower="b"][data-leader="a"][data-mode="hw"]'));
    await snap('watch-end-hw');

    // 4. This frame under hw | kip101 | kip279, side by side; each era's script by its clicks.
    await click('#eras');
    const compare = await page.evaluate(() => Array.from(document.querySelectorAll('#compare .column'), (c) => ({
      era: c.dataset.era, branch: Number(c.dataset.branch), frame: Number(c.dataset.frame), lost: c.dataset.lost,
      code: Array.from(c.querySelectorAll('.explain b'), (b) => b.textContent),
      text: c.innerText, pictures: c.querySelectorAll('svg').length,
      top: Math.round(c.getBoundingClientRect().top),
    })));
    await snap('compare');
    const eraScripts = {};
    // Viewing one era's branch closes the side by side; the next is reached from the frames.
    await click(`#compare button[data-view="${compare[0].branch}"]`);
    const compareClosed = await page.evaluate(() => document.getElementById('compare').hidden);
    for (const c of compare) {
      await click(`#branches button[data-branch="${c.branch}"][data-frame="${c.frame}"]`);
      eraScripts[c.era] = { branch: c.branch, script: await copy(), lost: (await seen()).lost };
    }

    // 5. The explorer from the preset's frame, its counterexample replayed by one click.
    const presetBranch = presetState.view.branch;
    await click(`#branches button[data-branch="${presetBranch}"][data-frame="${presetState.view.frame}"]`);
    await page.selectOption('#explore-mode', 'hw');
    await page.click('#explore');
    await page.waitForFunction(() => document.getElementById('explore-result').dataset.state === 'done', null, { timeout: 30000 });
    const explorer = await page.evaluate(() => ({
      found: document.getElementById('explore-result').dataset.found,
      steps: Array.from(document.querySelectorAll('#explore-steps li'), (l) => l.textContent),
    }));
    const replayed = await click('#replay');
    const replayState = await state();
    const replayScript = await copy();
    await snap('replayed');

    // 6. A phone's width: the picture above the buttons, no text under 12 px, nothing wider
    //    than the page.
    await page.setViewportSize({ width: 400, height: 900 });
    const narrow = [];
    const measure = () => page.evaluate(() => {
      const small = [];
      for (const svg of document.querySelectorAll('svg')) {
        if (!svg.getClientRects().length) continue;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        for (const t of svg.querySelectorAll('text')) {
          const size = parseFloat(t.getAttribute('font-size') || getComputedStyle(t).fontSize) * scale;
          if (size < 11.99 && t.textContent.trim()) small.push(`svg "${t.textContent}" ${size.toFixed(1)}px`);
        }
      }
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const e = n.parentElement;
        if (!n.textContent.trim() || !e.getClientRects().length || e.closest('svg')) continue;
        const size = parseFloat(getComputedStyle(e).fontSize);
        if (size < 12) small.push(`${e.tagName} "${n.textContent.trim().slice(0, 30)}" ${size}px`);
      }
      const top = (id) => Math.round(document.getElementById(id).getBoundingClientRect().top + scrollY);
      return {
        small: small.slice(0, 10),
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        picture_top: top('picture'),
        actions_top: top('actions'),
        preset_top: top('preset'),
      };
    });
    await click(`#branches button[data-branch="${presetBranch}"][data-frame="${presetState.view.frame}"]`);
    narrow.push({ name: 'preset', ...(await measure()) });
    await page.evaluate(() => scrollTo(0, 0));
    await snap('preset-first-screen', false);
    await snap('preset');
    await click(`#branches button[data-branch="${compare[0].branch}"][data-frame="${compare[0].frame}"]`);
    narrow.push({ name: 'hw-end', ...(await measure()) });
    await page.evaluate(() => document.getElementById('compare').scrollIntoView());
    await snap('compare-on-screen', false);

    // 7. "quiz me" at 400x900: the Watch's ending played from the preset, each button scrolled
    //    to and clicked as a thumb would; after each click the question is inside the screen,
    //    after each answer the result with its why is.
    await click('#preset');
    await page.check('#quiz-toggle');
    const inView = (id) => page.evaluate((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height),
               inside: r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1 };
    }, id);
    const phone = [];
    const thumb = async (selector, name) => {
      await page.locator(selector).scrollIntoViewIfNeeded();
      await page.click(selector);
      await idle();
      const asked = await seen();
      const quizBox = await inView('quiz');
      await snap(`phone-${phone.length + 1}-${name}-asked`, false);
      let result = null, resultBox = null;
      if (asked.quiz_shown) {
        await page.click(`#quiz-choices button[data-choice="${asked.choices[0]}"]`);
        await idle();
        result = await page.evaluate(() => document.getElementById('quiz-result').textContent);
        resultBox = await inView('quiz-result');
        await snap(`phone-${phone.length + 1}-${name}-answered`, false);
      }
      phone.push({ name, quiz_shown: asked.quiz_shown, question: asked.question, quizBox, result, resultBox });
    };
    await thumb(act('[data-act="crash"][data-replica="a"][data-power-loss="false"]'), 'crash-a');
    await thumb(act('[data-act="recover"][data-follower="a"][data-leader="b"][data-mode="hw"]'), 'recover-a-hw');
    await thumb(act('[data-act="crash"][data-replica="b"][data-power-loss="false"]'), 'crash-b');
    await page.uncheck('#isr-row input[data-isr="b"]');
    await thumb(act('[data-act="elect"][data-replica="a"]'), 'elect-a');
    await thumb(act('[data-act="append"][data-replica="a"]'), 'append-a');
    await thumb(act('[data-act="recover"][data-follower="b"][data-leader="a"][data-mode="hw"]'), 'recover-b-hw');
    await page.uncheck('#quiz-toggle');
    return {
      phone,
      errors, preset, presetState: { view: presetState.view, next_epoch: presetState.next_epoch, script: presetState.script,
        branch_dir: presetState.branch_dir, roles: presetState.frame.roles },
      quiz, elect, append, restart, compare, compareClosed, eraScripts, explorer, replayed,
      replay: { view: replayState.view, branch_dir: replayState.branch_dir, script: replayScript },
      narrow, dir: presetState.dir,
    };
  });
});
