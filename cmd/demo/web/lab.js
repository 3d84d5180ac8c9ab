// The lab on the demo's page (package lab; docs/demo.md "The lab"): pause
// the pipeline, step it one hop at a time, look inside every box at the
// step shown, rewind with the timeline, save and load a recording, and run
// the lessons. It only draws what the lab's HTTP API answers (web_lab.go);
// the live counters stay app.js's. Its strings are its own (LAB_I18N in
// lab_i18n.js, both languages), and it follows the page's language switch
// (the html lang).
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const lang = () => ((document.documentElement.lang || '').startsWith('zh') ? 'zh' : 'en');
  // L is a lab string in the page's language, with {name} filled in.
  const L = (k, args) => {
    let s = LAB_I18N[lang()][k];
    if (s === undefined) s = LAB_I18N.en[k] !== undefined ? LAB_I18N.en[k] : k;
    for (const [name, v] of Object.entries(args || {})) s = s.split('{' + name + '}').join(String(v));
    return s;
  };
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // humanDuration writes milliseconds as a person reads them, as the Go
  // side's humanDuration does: "1.8 s", "54 s", "2 min 5 s", "944 µs".
  function humanDuration(ms) {
    if (ms < 0) return '-' + humanDuration(-ms);
    const sig3 = (v) => String(Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)));
    if (ms >= 60000) {
      let m = Math.floor(ms / 60000); let s = Math.round((ms % 60000) / 1000);
      if (s === 60) { m += 1; s = 0; }
      return s === 0 ? m + ' min' : m + ' min ' + s + ' s';
    }
    if (ms >= 1000) return sig3(ms / 1000) + ' s';
    if (ms >= 1) return sig3(ms) + ' ms';
    if (ms >= 0.001) return sig3(ms * 1000) + ' µs';
    return Math.round(ms * 1e6) + ' ns';
  }
  // goDuration reads a Go duration ("2.8s", "1m2.5s", "350ms") as
  // milliseconds; NaN if it is not one.
  function goDuration(s) {
    const unit = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
    const parts = String(s).match(/^(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/) ? String(s).match(/\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)/g) : null;
    if (!parts) return NaN;
    return parts.reduce((sum, p) => { const m = p.match(/^([\d.]+)(.*)$/); return sum + Number(m[1]) * unit[m[2]]; }, 0);
  }
  const human = (s) => { const ms = goDuration(s); return Number.isNaN(ms) ? String(s) : humanDuration(ms); };
  // until is "in 1.2 s" (or "due") from the view's now to t.
  function until(t, now) {
    const d = Date.parse(t) - Date.parse(now);
    if (Number.isNaN(d)) return '-';
    return d > 0 ? L('inDur', { d: humanDuration(d) }) : L('due');
  }
  const clockOf = (t) => (t ? String(t).slice(11, 23) : '-'); // the lab clock's hh:mm:ss.mmm

  // Which pipeline box a hop belongs to: its box ("fifo/pods"), else its stage.
  const BOX_OF = { server: 'server', reflector: 'reflector', fifo: 'fifo', indexer: 'cache', listener: 'cache', workqueue: 'queue', controller: 'controller' };
  const STAGE_BOX = { server: 'server', listwatch: 'reflector', reflector: 'reflector', deltafifo: 'fifo', informer: 'cache', workqueue: 'queue', controller: 'controller' };
  const LOOKS = ['server', 'reflector', 'fifo', 'cache', 'queue', 'controller'];

  let view = null; // the last lab.View drawn
  let lesson = null; // the last LessonView, if a lesson is active
  let lessons = null; // GET /api/lab/lessons, or a string saying why not
  let sliderHeldUntil = 0; // the learner drags the timeline: the poll leaves it alone
  let busy = false; // a button's request is out: the poll waits
  let gen = 0; // counts the buttons' requests: a poll asked before one is not drawn
  let shownHopsFor = -1;
  let drawn = {}; // per box, the JSON last drawn (a redraw only when it changed)

  async function call(method, path) {
    const opts = { method };
    if (method === 'POST') opts.headers = { 'X-Kinformer': '1' };
    return fetch(path, opts);
  }
  async function answer(r) {
    let body = null;
    try { body = await r.json(); } catch (err) { body = null; }
    if (!r.ok) throw new Error((body && body.error) || r.status + ' ' + r.statusText);
    return body;
  }
  function say(msg) { $('lab-msg').textContent = msg || ''; }

  // post runs one of the lab's buttons and draws the view it answers.
  async function post(path, pick) {
    busy = true;
    gen++;
    try {
      const body = await answer(await call('POST', path));
      const v = pick ? pick(body) : body;
      say('');
      if (v) draw(v);
      return body;
    } catch (err) {
      say(L('error', { e: err.message }));
      return null;
    } finally {
      busy = false;
    }
  }

  let polling = false; // one poll at a time, however slow the answer
  async function poll() {
    if (busy || polling || document.hidden) return;
    polling = true;
    const asked = gen;
    try {
      const v = await answer(await call('GET', 'api/lab/state'));
      if (!busy && asked === gen) draw(v); // not a view older than a button's answer
    } catch (err) {
      /* the demo stopped or restarts; app.js says so */
    } finally {
      polling = false;
    }
  }

  // The server box: new, before the Reflector. Each box gets a <details>
  // that opens on its contents at the shown step.
  function buildBoxes() {
    const refl = $('box-reflector');
    if (refl && !$('box-server')) {
      const box = el('div', 'box'); box.id = 'box-server';
      const h = el('h2', '', L('server')); h.dataset.lab = 'server';
      const hint = el('p', 'hint', L('serverHint')); hint.dataset.lab = 'serverHint';
      const rows = el('div', 'rows'); rows.id = 'server-rows';
      const links = el('p', 'links');
      const a1 = el('a', '', L('docs')); a1.href = 'docs/fakeapiserver.md'; a1.dataset.lab = 'docs';
      const a2 = el('a', '', L('source')); a2.href = 'src/fakeapiserver/watch_stream.go'; a2.dataset.lab = 'source';
      links.append(a1, ' · ', a2);
      box.append(h, hint, rows, links);
      refl.before(box, el('div', 'arrow', '→'));
    }
    for (const name of LOOKS) {
      const box = $('box-' + name);
      if (!box || $('look-' + name)) continue;
      const d = el('details', 'look'); d.id = 'look-' + name;
      const s = el('summary', '', L('lookInside')); s.dataset.lab = 'lookInside';
      d.append(s, el('div', 'look-body'));
      const links = box.querySelector('p.links');
      if (links) links.before(d); else box.append(d);
    }
  }

  function relabel() {
    document.querySelectorAll('[data-lab]').forEach((e) => { e.textContent = L(e.dataset.lab); });
    drawn = {};
    if (view) draw(view);
    drawLessons();
  }

  // draw shows a lab.View: the bar, the timeline, every box's contents.
  function draw(v) {
    view = v;
    const ro = v.rewound || v.loaded;
    document.body.classList.toggle('lab-readonly', !!ro);
    $('lab-pause').textContent = v.paused ? L('resume') : L('pause');
    $('lab-pause').dataset.lab = v.paused ? 'resume' : 'pause';
    $('lab-status').textContent = v.loaded ? L('loaded') : v.rewound ? L('rewound') : v.paused ? L('paused') : L('live');
    $('lab-status').className = 'lab-status ' + (ro ? 'ro' : v.paused ? 'paused' : 'live');
    $('lab-stepno').textContent = v.step;
    $('lab-now').textContent = clockOf(v.now);
    $('lab-next').textContent = v.nextTimer ? clockOf(v.nextTimer) + ' (' + until(v.nextTimer, v.now) + ')' : L('none');
    if (document.activeElement !== $('lab-speed')) $('lab-speed').value = String(v.speed);
    $('lab-hop').textContent = v.hop ? '#' + v.hop.step + ' ' + v.hop.text : '-';
    $('lab-hop').className = v.hop && v.hop.world ? 'world' : '';
    const w = v.waiting || [];
    // Every goroutine of the pipeline holds at most one hop: a dozen is all of them.
    $('lab-waiting').replaceChildren(...(w.length ? w.slice(0, 12).map((h) => el('li', '', h.text)) : [el('li', 'hint', L('none'))]));
    if (w.length > 12) $('lab-waiting').append(el('li', 'hint', L('more', { n: w.length - 12 })));
    // The timeline.
    const sl = $('lab-slider');
    if (Date.now() > sliderHeldUntil) {
      sl.min = String(v.firstStep); sl.max = String(v.lastStep); sl.value = String(v.step);
    }
    $('lab-range').textContent = v.firstStep + '–' + v.lastStep;
    const rw = $('lab-rewound');
    rw.hidden = !ro;
    rw.textContent = v.loaded ? L('loadedAt', { n: v.step, a: v.firstStep, b: v.lastStep }) : L('rewoundTo', { n: v.step });
    if (v.step !== shownHopsFor) hopsAround(v.step);
    drawBoxes(v);
  }

  async function hopsAround(step) {
    shownHopsFor = step;
    try {
      const hops = await answer(await call('GET', 'api/lab/timeline?from=' + Math.max(0, step - 4) + '&limit=9'));
      if (shownHopsFor !== step) return;
      $('lab-hops').replaceChildren(...hops.map((h) => {
        const li = el('li', (h.step === step ? 'shown' : '') + (h.world ? ' world' : ''), '#' + h.step + ' ' + h.text);
        li.dataset.step = h.step;
        return li;
      }));
    } catch (err) { shownHopsFor = -1; }
  }

  // section is a titled part of a box's contents, marked when the shown
  // hop changed it.
  function section(title, hit) {
    const s = el('div', 'look-sec' + (hit ? ' hit' : ''));
    s.append(el('h4', '', title));
    return s;
  }
  function list(items, empty) {
    const ul = el('ul', 'look-list');
    if (!items.length) ul.append(el('li', 'hint', empty || L('empty')));
    for (const it of items) ul.append(it);
    return ul;
  }
  function keyed(key, text) {
    const li = el('li', '', text);
    if (key) li.dataset.lookKey = key;
    return li;
  }
  function kv(label, value) {
    const r = el('div', 'row');
    r.append(el('span', '', label), el('b', '', value === undefined || value === null || value === '' ? '-' : String(value)));
    return r;
  }
  const arr = (x) => (Array.isArray(x) ? x : []);
  // entries are a map's entries whose values are objects (a box may be null).
  const entries = (o) => Object.entries(o && typeof o === 'object' ? o : {}).filter(([, x]) => x && typeof x === 'object');
  const more = (x) => (x && x.truncated ? [el('li', 'hint', L('truncated', { n: x.truncated }))] : []);
  // extras shows the fields a box reports beyond the ones drawn.
  function extras(sec, obj, known) {
    for (const [k, val] of Object.entries(obj || {})) {
      if (!known.includes(k)) sec.append(kv(k, typeof val === 'object' ? JSON.stringify(val) : val));
    }
  }

  // delta is one queued delta: "Deleted (tombstone) rv 57", "ReplacedAll rv 21 · 4 objects".
  const delta = (d) => d.type + (d.tombstone ? ' (' + L('tombstone') + ')' : '') + ' rv ' + (d.rv || '-') +
    (typeof d.n === 'number' ? ' · ' + L('nObjects', { n: d.n }) : '');

  const drawBox = {
    server(v, hit) {
      const out = [];
      let watches = 0; let frames = 0;
      for (const [name, st] of entries(v.server)) {
        const ws = 'watches' in st ? st.watches : st;
        for (const [id, w] of entries(ws)) {
          watches++;
          const pending = arr(w.pending);
          frames += pending.length;
          const sec = section(L('watch') + ' ' + id + ' · ' + (w.resource || ''), hit('server/' + name));
          sec.append(list(pending.map((f) => keyed(f.key, f.type + ' ' + (f.key || '') + ' rv ' + (f.rv || '')))));
          out.push(sec);
        }
        if (st.truncated) out.push(el('p', 'hint', L('truncated', { n: st.truncated })));
      }
      $('server-rows').replaceChildren(kv(L('watchesOpen'), watches), kv(L('framesPending'), frames));
      return out;
    },
    reflector(v, hit) {
      return entries(v.reflector).map(([name, r]) => {
        const sec = section(name, hit('reflector/' + name));
        const phase = { listing: L('phListing'), watching: L('phWatching'), 'backing off': L('phBackingOff'), stopped: L('phStopped') }[r.phase];
        sec.append(kv(L('phase'), phase || r.phase), kv(L('reason'), r.reason), kv(L('lastSynced'), r.lastSyncResourceVersion));
        if (r.backoff) sec.append(kv(L('backoff'), human(r.backoff)));
        if (r.backoffUntil) sec.append(kv(L('backoffEnds'), until(r.backoffUntil, v.now)));
        extras(sec, r, ['phase', 'reason', 'lastSyncResourceVersion', 'backoff', 'backoffUntil']);
        return sec;
      });
    },
    fifo(v, hit) {
      return entries(v.fifo).map(([name, f]) => {
        const sec = section(name + (f.kind ? ' · ' + f.kind : ''), hit('fifo/' + name));
        sec.append(el('h5', '', L('queueOrder')));
        sec.append(list(arr(f.items).map((it) => keyed(it.key, (it.key || L('allKeys')) + ': ' +
          arr(it.deltas).map(delta).join(', '))).concat(more(f))));
        if (f.knownObjects) {
          sec.append(el('h5', '', L('knownObjects')));
          sec.append(list(arr(f.knownObjects).map((k) => keyed(k, k))));
        }
        extras(sec, f, ['kind', 'items', 'knownObjects', 'truncated']);
        return sec;
      });
    },
    cache(v, hit) {
      const out = entries(v.indexer).map(([name, c]) => {
        const sec = section(name, hit('indexer/' + name));
        if (c.syncRV) sec.append(kv(L('syncRV'), c.syncRV));
        sec.append(el('h5', '', L('objects')));
        sec.append(list(arr(c.objects).map((o) => keyed(o.key, o.key + ' rv ' + (o.rv || '-'))).concat(more(c))));
        const idx = Object.entries(c.indices || {});
        if (idx.length) {
          sec.append(el('h5', '', L('indices')));
          const items = [];
          for (const [iname, buckets] of idx) {
            for (const [val, keys] of Object.entries(buckets || {})) items.push(el('li', '', iname + ' = ' + val + ': ' + arr(keys).join(', ')));
          }
          sec.append(list(items));
        }
        extras(sec, c, ['objects', 'indices', 'syncRV', 'truncated']);
        return sec;
      });
      for (const [name, l] of entries(v.listeners)) {
        const sec = section(L('listener') + ' ' + name, hit('listener/' + name));
        sec.append(el('h5', '', L('pendingNotes')));
        sec.append(list(arr(l.pending).map((p) => keyed(p.key, p.type + ' ' + p.key + ' rv ' + (p.rv || '-')))));
        extras(sec, l, ['pending']);
        out.push(sec);
      }
      return out;
    },
    queue(v, hit) {
      return entries(v.workqueue).map(([name, q]) => {
        const sec = section(name, hit('workqueue/' + name));
        for (const [field, label] of [['queue', L('queue')], ['dirty', L('dirty')], ['processing', L('processing')]]) {
          sec.append(el('h5', '', label));
          sec.append(list(arr(q[field]).map((k) => keyed(k, k))));
        }
        sec.append(el('h5', '', L('waitingHeap')));
        sec.append(list(arr(q.waiting).map((w) => keyed(w.key, w.key + ' · ' + until(w.due, v.now)))));
        extras(sec, q, ['queue', 'dirty', 'processing', 'waiting']);
        return sec;
      });
    },
    controller(v, hit) {
      return entries(v.controller).map(([name, c]) => {
        const sec = section(name, hit('controller/' + name));
        sec.append(el('h5', '', L('expectations')));
        sec.append(list(entries(c.expectations).map(([k, e]) =>
          keyed(k, k + ': ' + L('adds') + ' ' + (e.adds || 0) + ', ' + L('dels') + ' ' + (e.dels || 0) +
            (e.satisfied === undefined ? '' : ' · ' + (e.satisfied ? L('satisfied') : L('unsatisfied'))) +
            (arr(e.deleting).length ? ' · ' + L('deleting') + ' ' + arr(e.deleting).join(', ') : '')))));
        sec.append(el('h5', '', L('reconciling')));
        sec.append(list(arr(c.reconciling).map((k) => keyed(k, k)).concat(more(c))));
        extras(sec, c, ['expectations', 'reconciling', 'truncated']);
        return sec;
      });
    }
  };

  function drawBoxes(v) {
    const hop = v.hop || null;
    const hitBox = hop ? (hop.box ? BOX_OF[hop.box.split('/')[0]] : STAGE_BOX[hop.stage]) : '';
    const hit = (k) => !!hop && hop.box === k;
    for (const name of LOOKS) {
      const box = $('box-' + name);
      if (!box) continue;
      box.classList.toggle('lab-hit', name === hitBox);
      const body = box.querySelector('.look-body');
      const secs = drawBox[name](v, hit);
      const sig = JSON.stringify([lang(), v.step, v.rewound, v.loaded, secs.map((s) => s.textContent)]);
      if (drawn[name] === sig) continue;
      drawn[name] = sig;
      const head = el('p', 'hint', L('atStep', { n: v.step }) + (v.rewound || v.loaded ? ' · ' + L('rewound') : ''));
      body.replaceChildren(head, ...(secs.length ? secs : [el('p', 'hint', L('noContents'))]));
      if (hop && hop.key) body.querySelectorAll('[data-look-key]').forEach((e) => e.classList.toggle('hl-key', e.dataset.lookKey === hop.key));
    }
  }

  // The lessons (cmd/demo/lesson*.go): a list, then Start, Next, Back, Stop.
  async function loadLessons() {
    try {
      const r = await call('GET', 'api/lab/lessons');
      lessons = r.ok ? await r.json() : r.status + ' ' + r.statusText;
    } catch (err) { lessons = String(err.message); }
    try {
      const r = await call('GET', 'api/lab/lesson');
      if (r.ok) { const lv = await r.json(); lesson = lv && lv.active ? lv : null; }
    } catch (err) { /* no lessons */ }
    drawLessons();
  }

  const tr = (x) => (x && typeof x === 'object' ? x[lang()] || x.en || '' : x || '');

  function drawLessons() {
    const pick = $('lesson-pick');
    const on = Array.isArray(lessons);
    for (const id of ['lesson-pick', 'lesson-start', 'lesson-next', 'lesson-back', 'lesson-stop']) $(id).disabled = !on;
    if (!on) {
      $('lesson-summary').textContent = lessons === null ? '' : L('lessonsOff', { s: lessons });
      return;
    }
    const was = pick.value;
    pick.replaceChildren(...lessons.map((ls) => { const o = el('option', '', tr(ls.title)); o.value = ls.id; return o; }));
    if (lesson && lesson.id) pick.value = lesson.id; else if (was) pick.value = was;
    const chosen = lessons.find((ls) => ls.id === pick.value);
    $('lesson-summary').textContent = chosen ? tr(chosen.summary) : '';
    const active = !!(lesson && lesson.active);
    $('lesson-next').disabled = !active || !!lesson.done;
    $('lesson-back').disabled = !active || !(lesson.index > 0);
    $('lesson-stop').disabled = !active;
    $('lesson').hidden = !active;
    if (!active) return;
    $('lesson-title').textContent = tr(lesson.title);
    $('lesson-index').textContent = lesson.index === 0 ? L('intro') : L('lessonStep', { i: lesson.index, n: lesson.step });
    $('lesson-text').textContent = tr(lesson.narration);
    $('lesson-hop').textContent = lesson.hop ? '#' + lesson.hop.step + ' ' + lesson.hop.text : '';
    $('lesson-done').hidden = !lesson.done;
    $('lesson-error').textContent = lesson.errorText ? tr(lesson.errorText) : lesson.error || '';
  }

  // lessonPost runs a lesson's button; #lesson counts the answers
  // (data-answers), so that a test knows when one came.
  async function lessonPost(path) {
    const body = await post(path, (lv) => (lv && lv.state ? lv.state : null));
    if (body) { lesson = body.active ? body : null; drawLessons(); }
    $('lesson').dataset.answers = String(Number($('lesson').dataset.answers || 0) + 1);
  }

  function rewindTo(step) {
    post('api/lab/rewind?step=' + encodeURIComponent(step));
  }

  document.addEventListener('DOMContentLoaded', () => {
    if (!$('lab')) return;
    buildBoxes();
    document.querySelectorAll('[data-lab]').forEach((e) => { e.textContent = L(e.dataset.lab); });
    new MutationObserver(relabel).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
    $('lab-pause').addEventListener('click', () => post(view && view.paused ? 'api/lab/resume' : 'api/lab/pause'));
    $('lab-step').addEventListener('click', async () => {
      $('lab-step').disabled = true;
      try {
        if (!view || !view.paused) await post('api/lab/pause');
        busy = true;
        gen++;
        const r = await call('POST', 'api/lab/step');
        const body = await r.json().catch(() => null);
        if (r.status === 409) say(L('idle'));
        else if (!r.ok) say(L('error', { e: (body && body.error) || r.statusText }));
        else { say(''); draw(body.state); }
      } catch (err) {
        say(L('error', { e: err.message }));
      } finally {
        busy = false;
        $('lab-step').disabled = false;
      }
    });
    $('lab-speed').addEventListener('change', () => post('api/lab/speed?x=' + encodeURIComponent($('lab-speed').value)));
    let dragTimer = null;
    $('lab-slider').addEventListener('input', () => {
      sliderHeldUntil = Date.now() + 1500;
      clearTimeout(dragTimer);
      dragTimer = setTimeout(() => rewindTo($('lab-slider').value), 150);
    });
    $('lab-slider').addEventListener('change', () => {
      clearTimeout(dragTimer);
      sliderHeldUntil = Date.now() + 500;
      rewindTo($('lab-slider').value);
    });
    $('lab-hops').addEventListener('click', (ev) => {
      const s = ev.target && ev.target.dataset && ev.target.dataset.step;
      if (s) rewindTo(s);
    });
    $('lab-load').addEventListener('change', async () => {
      const f = $('lab-load').files[0];
      if (!f) return;
      busy = true;
      gen++;
      try {
        const r = await fetch('api/lab/recording', { method: 'POST', headers: { 'X-Kinformer': '1' }, body: await f.text() });
        draw(await answer(r));
        say('');
      } catch (err) {
        say(L('loadFailed', { e: err.message }));
      } finally {
        busy = false;
        $('lab-load').value = '';
      }
    });
    $('lesson-pick').addEventListener('change', drawLessons);
    $('lesson-start').addEventListener('click', () => lessonPost('api/lab/lesson/start?id=' + encodeURIComponent($('lesson-pick').value)));
    $('lesson-next').addEventListener('click', () => lessonPost('api/lab/lesson/next'));
    $('lesson-back').addEventListener('click', () => lessonPost('api/lab/lesson/back'));
    $('lesson-stop').addEventListener('click', async () => {
      await post('api/lab/lesson/stop', () => null);
      lesson = null;
      drawLessons();
    });
    loadLessons();
    poll();
    setInterval(poll, 400);
  });
})();
