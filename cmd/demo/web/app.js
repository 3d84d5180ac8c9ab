// The live view of cmd/demo. Everything drawn here comes from the snapshots
// of /api/stream (Server-Sent Events), aggregated in Go from the trace and
// the work queue's metrics; this script only draws them.
'use strict';

const I18N = {
  en: {
    title: 'kinformer: the informer pipeline, live', connecting: 'connecting…', live: 'live', ended: 'demo stopped',
    uptime: 'uptime', reflector: 'Reflector', reflectorHint: 'list, then watch from the last resourceVersion',
    relists: 'relists', watchRestarts: 'watch restarts', docs: 'docs', source: 'source', docsInformer: 'informer', sourceHandlers: 'handlers',
    fifo: 'DeltaFIFO', fifoHint: 'deltas per key, waiting to be popped', indexer: 'Indexer (cache)', indexerHint: 'objects in the local cache',
    handlers: 'Event handlers', workqueue: 'Work queue', queueHint: 'keys waiting for a worker', depth: 'depth', inFlight: 'in flight',
    adds: 'adds', deduped: 'deduplicated', retries: 'retries', latency: 'wait (avg)', work: 'work (avg)', delays: 'Rate-limiter delays',
    controller: 'Controller', controllerHint: 'workers reconcile ReplicaSet web', reconciles: 'reconciles', failures: 'retried reconciles',
    podsCreated: 'pods created', podsDeleted: 'pods deleted', desired: 'desired', current: 'current', ready: 'ready',
    rates: 'Watch events per second', totalEvents: 'watch events so far', faultsInjected: 'faults', breakIt: 'Break it',
    btnDeletePod: 'delete a random pod', btnDropWatches: 'drop every watch', btnCompact: 'compact the history',
    btnFail429: 'fail next requests: 429', btnFail500: 'fail next requests: 500', btnSlow: 'slow a handler', btnFailReconcile: 'make reconcile fail',
    faultDocs: 'the fault endpoints', demoDocs: 'this page', traceDocs: 'the trace', pods: 'Pods in the cache', podsHint: 'click a pod to follow its path',
    log: 'Trace', filter: 'filter by key', clear: 'clear', pause: 'pause',
    phase: 'phase', lastRV: 'last rv', lists: 'lists', watches: 'watches', events: 'watch events',
    queued: 'queued', popped: 'popped', tombstones: 'tombstones', size: 'objects', pending: 'pending', delivered: 'delivered',
    listing: 'listing', watching: 'watching', 'backing off': 'backing off', stopped: 'stopped',
    none: 'none', slowOn: 'slow: on', failLeft: 'to fail', skipped: 'events not shown (too many at once)', filtered: 'showing the path of',
    noDelays: 'none waiting', last: 'last reconcile',
    informer_today: "informer: today's (client-go 1.36)", informer_articles: "informer: the articles'",
    reflectorHintToday: 'streaming list (initial events, then a bookmark), then the same watch goes on',
    realfifo: 'RealFIFO', realfifoHint: 'every delta in order; a relist is one ReplacedAll item',
    replacedAll: 'relists as one item', batches: 'batches', syncRV: 'store at rv',
    retryN: 'retry #{n}', tryThis: 'Try this', tryHint: 'in another terminal; the same lines as the terminal\'s tour',
    tourWaiting: 'the tour comes once the informers have synced…',
    gapFifoDelta: 'queued counts deltas (a tombstone too); popped counts pops, and a DeltaFIFO pops all of a key\'s queued deltas at once: a key that changed again before it was popped is several deltas queued, one pop. depth counts keys waiting, not deltas.',
    gapFifoReal: 'queued and popped count items: each delta, and a relist\'s one ReplacedAll, a resync\'s one SyncAll, a bookmark\'s one Bookmark; a batch counts each of its deltas. Items leave in the order they came: queued = popped + depth.',
    gapTombstones: 'deletes learned from a relist, not from a watch event (the summary\'s tombstones): a DeltaFIFO queues a tombstone; today\'s ReplacedAll finds the key gone from the list',
    gapReflectorEvents: 'watch events this reflector handled; a streaming list\'s initial events and the bookmarks are not among them. \'watch events so far\' (below) counts every frame decoded, of both informers, as the summary does.',
    gapRelists: 'lists after each informer\'s first (after a 410 Expired or a failure); watch restarts: watches after each informer\'s first, a streaming list being one. The summary counts the same.',
    gapQueue: 'adds: keys put on the queue; deduplicated: adds of a key already waiting, or added again while it is processed. One reconcile answers them all: reconciles are far fewer than the handler\'s enqueues.',
    gapRetries: 'reconciles put back on the queue with the rate limiter\'s delay: a failure, or a cache not yet caught up with the controller\'s own write (the summary\'s retries; cacheWaits are the second kind)',
    gapTotal: 'every watch frame decoded, of both informers, bookmarks and a streaming list\'s initial events included: the summary\'s watch events received'
  },
  zh: {
    title: 'kinformer：Informer 流水线实时视图', connecting: '连接中…', live: '实时', ended: '演示已停止',
    uptime: '运行时间', reflector: '反射器 Reflector', reflectorHint: '先列举（list），再从最新的资源版本（resourceVersion）监听（watch）',
    relists: '全量同步（relist）', watchRestarts: '监听重连', docs: '文档', source: '源码', docsInformer: '通知器 Informer', sourceHandlers: '事件处理器',
    fifo: '增量队列 DeltaFIFO', fifoHint: '按键（key）累积的增量，等待弹出', indexer: '索引器 / 本地缓存 Indexer', indexerHint: '本地缓存中的对象',
    handlers: '事件处理器 handler', workqueue: '工作队列 work queue', queueHint: '等待 worker 处理的键', depth: '队列深度', inFlight: '处理中',
    adds: '入队次数', deduped: '事件去重', retries: '重试次数', latency: '等待（平均）', work: '处理（平均）', delays: '限速器延迟',
    controller: '控制器 Controller', controllerHint: 'worker 调谐（reconcile）ReplicaSet web', reconciles: '调谐次数', failures: '重试的调谐',
    podsCreated: '已创建 Pod', podsDeleted: '已删除 Pod', desired: '期望', current: '当前', ready: '就绪',
    rates: '每秒监听事件', totalEvents: '监听事件总数', faultsInjected: '注入的故障', breakIt: '制造故障',
    btnDeletePod: '随机删除一个 Pod', btnDropWatches: '断开所有监听', btnCompact: '压缩历史（compact）',
    btnFail429: '后续请求失败：429', btnFail500: '后续请求失败：500', btnSlow: '让一个事件处理器变慢', btnFailReconcile: '让调谐失败',
    faultDocs: '故障端点', demoDocs: '本页说明', traceDocs: '追踪（trace）', pods: '缓存中的 Pod', podsHint: '点击一个 Pod，查看它走过的路径',
    log: '追踪事件', filter: '按键过滤', clear: '清除', pause: '暂停',
    phase: '阶段', lastRV: '最新 rv', lists: '列举次数', watches: '监听次数', events: '监听事件',
    queued: '入队', popped: '弹出', tombstones: '墓碑（tombstone）', size: '对象数', pending: '待处理通知', delivered: '已送达',
    listing: '列举中', watching: '监听中', 'backing off': '退避中', stopped: '已停止',
    none: '无', slowOn: '变慢：开', failLeft: '次待失败', skipped: '条事件未显示（一次太多）', filtered: '正在显示路径：',
    noDelays: '没有等待中的键', last: '最近一次调谐',
    informer_today: '通知器：今天的（client-go 1.36）', informer_articles: '通知器：文章里的',
    reflectorHintToday: '流式列举（先是初始事件，再是一个书签），然后同一个监听继续',
    realfifo: '增量队列 RealFIFO', realfifoHint: '按到达顺序的每个增量；一次全量同步是一个 ReplacedAll 条目',
    replacedAll: '一个条目的全量同步', batches: '批次', syncRV: '存储到达的 rv',
    retryN: '第 {n} 次重试', tryThis: '试试这些', tryHint: '在另一个终端里；和终端里导览的命令相同',
    tourWaiting: '通知器同步之后就会显示导览…',
    gapFifoDelta: '入队数的是增量（墓碑也算）；弹出数的是出队次数，增量队列（DeltaFIFO）一次弹出一个键排队的全部增量：一个键在出队前又变了，就是好几个增量入队、一次弹出。队列深度数的是等待的键，不是增量。',
    gapFifoReal: '入队和弹出数的都是条目：每个增量，以及一次全量同步的一个 ReplacedAll、一次重新同步的一个 SyncAll、一个书签的一个 Bookmark；一批按其中的增量计数。条目按到达顺序离开：入队 = 弹出 + 队列深度。',
    gapTombstones: '从全量同步而不是从监听事件得知的删除（即总结里的墓碑）：增量队列（DeltaFIFO）放入一个墓碑；今天的 ReplacedAll 发现列表里已没有这个键',
    gapReflectorEvents: '这个反射器处理的监听事件；不含流式列举的初始事件和书签。下面的“监听事件总数”数的是两个通知器解码的每一帧，和总结一样。',
    gapRelists: '全量同步：每个通知器第一次之后的列举（在 410 过期或失败之后）；监听重连：每个通知器第一次之后的监听，流式列举也算一个。总结也是这样数的。',
    gapQueue: '入队次数：放进队列的键；事件去重：键已在等待、或正在处理时又被加入。一次调谐就回应了它们全部：调谐次数远少于事件处理器的入队次数。',
    gapRetries: '带着限速器的延迟放回队列的调谐：一次失败，或者本地缓存还没跟上控制器自己的写入（即总结里的 retries；cacheWaits 是后一种）',
    gapTotal: '两个通知器解码的每一个监听帧，包括书签和流式列举的初始事件：即总结里收到的监听事件'
  }
};

let lang = localStorage.getItem('kinformer-lang') || ((navigator.language || '').startsWith('zh') ? 'zh' : 'en');
if (!I18N[lang]) lang = 'en';
const t = (k) => (I18N[lang][k] !== undefined ? I18N[lang][k] : (I18N.en[k] !== undefined ? I18N.en[k] : k));
const $ = (id) => document.getElementById(id);
let latest = null;
const MAX_LOG = 1500;
let logEvents = [];
let filterKey = '';
let filterEvents = null; // the server's kept events about filterKey, then live ones
let lastResult = null; // what the last button did, in both languages
let tourPlans = null; // GET /api/tour: the tour in each language
let tourAsked = false;

function applyLang() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
  $('lang-en').classList.toggle('active', lang === 'en');
  $('lang-zh').classList.toggle('active', lang === 'zh');
  document.title = t('title');
  showResult();
  renderTour();
  if (latest) render(latest);
}

// showResult says what the last button did, in the page's language.
function showResult() {
  if (!lastResult) return;
  const r = lastResult;
  $('fault-result').textContent = (lang === 'zh' ? (r.did_zh || r.error_zh) : (r.did || r.error)) || r.status;
}

// loadTour fetches the tour, once it is printed (503 until then).
async function loadTour() {
  if (tourPlans || tourAsked) return;
  tourAsked = true;
  try {
    const r = await fetch('api/tour');
    if (r.ok) tourPlans = await r.json();
  } catch (err) {
    // asked again with the next snapshot
  }
  tourAsked = false;
  renderTour();
}

// renderTour draws the "Try this" panel: the terminal's tour, step by step.
function renderTour() {
  const p = tourPlans && (tourPlans[lang] || tourPlans.en);
  $('tour-chaos').textContent = p ? p.chaosOff : t('tourWaiting');
  $('tour').replaceChildren(...(p ? p.steps : []).map((step) => {
    const li = el('li', '', step.title);
    for (const l of step.lines) {
      const d = el('div', 'cmd');
      d.append(el('code', '', l.cmd));
      if (l.note) d.append(el('span', 'hint', ' ' + l.note));
      li.append(d);
    }
    return li;
  }));
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function row(label, value, id, title) {
  const r = el('div', 'row');
  r.append(el('span', '', label));
  const b = el('b', '', String(value));
  if (id) b.id = id;
  r.append(b);
  if (title) r.title = title; // why two numbers differ, on hover
  return r;
}

function bar(value, max) {
  const b = el('div', 'bar' + (value > max / 2 ? ' hot' : ''));
  const i = el('i');
  i.style.width = Math.min(100, (100 * value) / Math.max(1, max)) + '%'; // CSSOM: allowed by the CSP
  b.append(i);
  return b;
}

// relabel sets an element's label key (data-i18n) and its text.
function relabel(id, key) {
  $(id).dataset.i18n = key;
  $(id).textContent = t(key);
}

function render(s) {
  $('uptime').textContent = s.t.toFixed(1);
  // Which informer runs (--informer): it names the queue and its numbers.
  const today = s.informer === 'today';
  $('informer').textContent = t('informer_' + s.informer);
  $('informer').dataset.informer = s.informer;
  relabel('reflector-hint', today ? 'reflectorHintToday' : 'reflectorHint');
  relabel('fifo-title', s.queueName === 'RealFIFO' ? 'realfifo' : 'fifo');
  relabel('fifo-hint', s.queueName === 'RealFIFO' ? 'realfifoHint' : 'fifoHint');
  $('fifo-source').href = s.queueName === 'RealFIFO' ? 'src/deltafifo/the_real_fifo.go' : 'src/deltafifo/delta_fifo.go';
  // Reflector
  const refl = $('reflectors');
  refl.replaceChildren();
  let relists = 0; let restarts = 0;
  for (const r of s.reflectors || []) {
    relists += r.relists; restarts += r.watchRestarts;
    refl.append(el('div', 'res', r.resource));
    const pr = el('div', 'row');
    pr.append(el('span', '', t('phase')));
    const ph = el('span', 'phase ' + (r.phase || '').replace(/ /g, '-'), t(r.phase || 'none') + (r.backoff ? ' ' + r.backoff : ''));
    ph.title = (lang === 'zh' ? r.whyZH : r.why) || '';
    pr.append(ph);
    refl.append(pr, row(t('lastRV'), r.lastRV || '-'), row(t('relists'), r.relists, '', t('gapRelists')),
      row(t('watchRestarts'), r.watchRestarts, '', t('gapRelists')), row(t('events'), r.events, '', t('gapReflectorEvents')));
  }
  $('relists').textContent = relists;
  $('watch-restarts').textContent = restarts;
  // DeltaFIFO
  const fifos = $('fifos');
  fifos.replaceChildren();
  const gap = t(today ? 'gapFifoReal' : 'gapFifoDelta');
  for (const f of s.fifos || []) {
    fifos.append(el('div', 'res', f.resource), row(t('depth'), f.depth, '', gap), bar(f.depth, 20),
      row(t('queued'), f.queued, '', gap), row(t('popped'), f.popped, '', gap));
    if (today) fifos.append(row(t('replacedAll'), f.replacedAll), row(t('batches'), f.batches, '', gap));
    fifos.append(row(t('tombstones'), f.tombstones, '', t('gapTombstones')));
  }
  // Indexer and handlers
  const caches = $('caches');
  caches.replaceChildren();
  for (const c of s.caches || []) {
    caches.append(row(c.resource + ' · ' + t('size'), c.size));
    if (today) caches.append(row(c.resource + ' · ' + t('syncRV'), c.syncRV || '-'));
  }
  const hs = $('handlers');
  hs.replaceChildren();
  for (const h of s.handlers || []) {
    hs.append(el('div', 'res', h.resource + ' → ' + h.handler), row(t('pending'), h.pending), bar(h.pending, 20), row(t('delivered'), h.delivered));
  }
  // Work queue
  const q = s.queue;
  $('q-depth').textContent = q.depth; $('q-inflight').textContent = q.inFlight; $('q-adds').textContent = q.adds;
  $('q-deduped').textContent = q.deduped; $('q-retries').textContent = q.retries;
  $('q-latency').textContent = q.latencyAvg || '-'; $('q-work').textContent = q.workAvg || '-';
  $('q-delays').replaceChildren(...(q.delays && q.delays.length ? q.delays.map((d) => el('li', '', d.key + ' · ' + t('retryN').replace('{n}', d.retry) + ' · ' + d.delay)) : [el('li', 'hint', t('noDelays'))]));
  for (const id of ['q-adds', 'q-deduped']) $(id).parentElement.title = t('gapQueue');
  $('c-failures').parentElement.title = t('gapRetries');
  $('events-total').title = t('gapTotal');
  $('relists').title = t('gapRelists');
  // Controller
  const c = s.controller;
  $('c-reconciles').textContent = c.reconciles; $('c-failures').textContent = c.failures;
  $('c-created').textContent = c.podsCreated; $('c-deleted').textContent = c.podsDeleted;
  $('rs-desired').textContent = c.desired; $('rs-current').textContent = c.current; $('rs-ready').textContent = c.ready;
  const zh = lang === 'zh';
  $('c-last').textContent = c.lastFound ? t('last') + (zh ? '：' : ': ') + (zh ? c.lastFoundZH : c.lastFound) + ' → ' + (zh ? c.lastDidZH : c.lastDid) : '';
  // Rates
  const rates = $('rates');
  rates.replaceChildren();
  let total = 0;
  for (const typ of ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']) {
    const v = (s.rates && s.rates[typ]) || 0;
    total += (s.totals && s.totals[typ]) || 0;
    const r = el('div', 'rate');
    r.append(el('span', '', typ), bar(v, 10), el('b', '', v.toFixed(1) + '/s'));
    rates.append(r);
  }
  $('events-total').textContent = total;
  $('faults').textContent = s.faults;
  $('btn-slow-handler').classList.toggle('on', s.controls.slowHandler);
  $('btn-slow-handler').textContent = t('btnSlow') + (s.controls.slowHandler ? ' (' + t('slowOn') + ')' : '');
  $('btn-fail-reconcile').textContent = t('btnFailReconcile') + (s.controls.failReconcile ? ' (' + s.controls.failReconcile + ' ' + t('failLeft') + ')' : '');
  // Pods
  // The pods only when they change, so that a click is not lost to a redraw.
  const pods = $('pods');
  const sig = filterKey + '|' + (s.pods || []).map((p) => p.key + '@' + p.rv).join(',');
  if (pods.dataset.sig === sig) return;
  pods.dataset.sig = sig;
  pods.replaceChildren(...(s.pods || []).map((p) => {
    const li = el('li', p.key === filterKey ? 'sel' : '', p.key);
    li.title = 'rv ' + p.rv;
    li.dataset.key = p.key;
    return li;
  }));
}

function matches(e) { return !filterKey || (e.keys || []).includes(filterKey); }

function logLine(e) {
  const li = el('li', e.warn ? 'warn' : '');
  li.append(el('span', 't', e.t.toFixed(3) + 's'), el('span', 'st st-' + e.stage, e.stage));
  const rest = e.text.startsWith(e.stage + ': ') ? e.text.slice(e.stage.length + 2) : e.text;
  li.append(el('span', '', rest + ' '));
  for (const k of e.keys || []) {
    const a = el('span', 'k', k);
    a.dataset.key = k;
    li.append(a, el('span', '', ' '));
  }
  return li;
}

function redrawLog() {
  const list = filterKey ? (filterEvents || []) : logEvents;
  $('log').replaceChildren(...list.slice(-MAX_LOG).map(logLine));
  $('log-note').textContent = filterKey ? t('filtered') + ' ' + filterKey + ' (' + list.length + ')' : '';
  $('log').scrollTop = $('log').scrollHeight;
}

function addEvents(evs) {
  if (!evs || !evs.length) return;
  logEvents.push(...evs);
  if (logEvents.length > MAX_LOG) logEvents = logEvents.slice(-MAX_LOG);
  if ($('pause').checked) return;
  const log = $('log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  const shown = filterKey ? evs.filter(matches) : evs;
  if (filterKey && filterEvents) filterEvents.push(...shown);
  for (const e of shown) log.append(logLine(e));
  while (log.childElementCount > MAX_LOG) log.firstElementChild.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

async function setFilter(key) {
  filterKey = key.trim();
  $('filter').value = filterKey;
  filterEvents = null;
  if (filterKey) {
    try {
      const r = await fetch('api/events?key=' + encodeURIComponent(filterKey));
      filterEvents = (await r.json()) || [];
    } catch (err) {
      filterEvents = logEvents.filter(matches);
    }
  }
  redrawLog();
  if (latest) render(latest);
}

function connect() {
  const es = new EventSource('api/stream');
  es.addEventListener('snapshot', (m) => {
    const s = JSON.parse(m.data);
    latest = s;
    $('conn').textContent = t('live');
    $('conn').className = 'conn on';
    render(s);
    addEvents(s.events);
    loadTour();
    if (s.skipped) $('log-note').textContent = s.skipped + ' ' + t('skipped');
  });
  es.addEventListener('end', () => {
    es.close();
    $('conn').textContent = t('ended');
    $('conn').className = 'conn off';
  });
  es.onerror = () => {
    $('conn').textContent = t('connecting');
    $('conn').className = 'conn off';
  };
}

document.addEventListener('DOMContentLoaded', () => {
  $('lang-en').addEventListener('click', () => { lang = 'en'; localStorage.setItem('kinformer-lang', lang); applyLang(); });
  $('lang-zh').addEventListener('click', () => { lang = 'zh'; localStorage.setItem('kinformer-lang', lang); applyLang(); });
  document.querySelectorAll('button[data-fault]').forEach((b) => b.addEventListener('click', async () => {
    const res = $('fault-result');
    res.textContent = '…';
    try {
      const r = await fetch('api/fault/' + b.dataset.fault, { method: 'POST', headers: { 'X-Kinformer': '1' } });
      lastResult = await r.json();
      lastResult.status = r.statusText;
      showResult();
    } catch (err) {
      res.textContent = String(err);
    }
  }));
  $('filter').addEventListener('change', () => setFilter($('filter').value));
  $('filter-clear').addEventListener('click', () => setFilter(''));
  $('pause').addEventListener('change', () => { if (!$('pause').checked) redrawLog(); });
  document.addEventListener('click', (ev) => {
    const k = ev.target && ev.target.dataset && ev.target.dataset.key;
    if (k) setFilter(k === filterKey ? '' : k);
  });
  applyLang();
  connect();
});
