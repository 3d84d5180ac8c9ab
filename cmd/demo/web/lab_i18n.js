// The lab's strings (lab.js), in English and Chinese: every key in both,
// with the same {placeholders} (TestLabPage_EveryStringHasAChineseEntry).
'use strict';

const LAB_I18N = {
  en: {
    labTitle: 'Lab', pause: 'Pause', resume: 'Resume', step: 'Step', speed: 'speed', stepNo: 'step',
    clock: 'lab clock', nextTimer: 'next timer', hop: 'hop', waiting: 'waiting at the gate (next first)',
    save: 'Save recording', load: 'Load recording', live: 'live', paused: 'paused', rewound: 'rewound (read-only)',
    loaded: 'recording (read-only)', none: 'none', more: '+{n} more',
    rewoundTo: 'rewound to step {n}: the state recorded after it, read-only; Resume to go on live',
    loadedAt: 'a loaded recording, step {n} ({a}–{b}), read-only; Resume to go on live',
    idle: 'nothing to step: no hop is waiting and no timer is due', due: 'due', inDur: 'in {d}',
    timeline: 'timeline', hopsAround: 'hops around the shown step',
    lookInside: 'look inside', atStep: 'at step {n}', empty: 'empty', noContents: 'no contents reported yet',
    server: 'API server', serverHint: 'its watches: frames not yet written', watchesOpen: 'watches open', framesPending: 'frames pending',
    watch: 'watch',
    phase: 'phase', reason: 'reason', lastSynced: 'last synced rv', backoff: 'backoff', backoffEnds: 'backoff ends',
    queueOrder: 'queue, in pop order', knownObjects: 'KnownObjects', objects: 'objects', indices: 'indices', syncRV: 'store at rv',
    listener: 'listener', pendingNotes: 'pending notifications', queue: 'queue', dirty: 'dirty', processing: 'processing',
    waitingHeap: 'waiting (delayed adds)', expectations: 'expectations', adds: 'adds', dels: 'dels', truncated: '{n} more not shown',
    allKeys: '(all keys)', lessons: 'Lessons', start: 'Start', next: 'Next', back: 'Back', stop: 'Stop',
    lessonsOff: 'no lessons in this build (GET /api/lab/lessons answered {s})', lessonStep: 'step {i} of the lesson (lab step {n})',
    intro: 'introduction', done: 'done: the lesson reached its end', loadFailed: 'could not load the recording: {e}',
    error: 'error: {e}', tombstone: 'tombstone', nObjects: '{n} objects', reconciling: 'being reconciled',
    satisfied: 'satisfied', unsatisfied: 'waiting for the cache', deleting: 'deleting', docs: 'docs', source: 'source',
    phListing: 'listing', phWatching: 'watching', phBackingOff: 'backing off', phStopped: 'stopped'
  },
  zh: {
    labTitle: '实验台', pause: '暂停', resume: '继续', step: '单步', speed: '速度', stepNo: '步',
    clock: '实验时钟', nextTimer: '下一个定时器', hop: '这一跳', waiting: '在闸门等待的跳（下一个在前）',
    save: '保存记录', load: '载入记录', live: '实时', paused: '已暂停', rewound: '已回退（只读）',
    loaded: '载入的记录（只读）', none: '无', more: '还有 {n} 个',
    rewoundTo: '已回退到第 {n} 步：显示的是该步之后记录的状态，只读；点“继续”回到实时',
    loadedAt: '载入的记录，第 {n} 步（{a}–{b}），只读；点“继续”回到实时',
    idle: '无法单步：没有等待的跳，也没有到期的定时器', due: '已到期', inDur: '{d}后',
    timeline: '时间线', hopsAround: '所示步骤前后的跳',
    lookInside: '查看内部', atStep: '第 {n} 步时', empty: '空', noContents: '尚未报告内容',
    server: 'API 服务器', serverHint: '它的监听：尚未写出的帧', watchesOpen: '打开的监听', framesPending: '待发送的帧',
    watch: '监听',
    phase: '阶段', reason: '原因', lastSynced: '最后同步的 rv', backoff: '退避', backoffEnds: '退避结束',
    queueOrder: '队列（按弹出顺序）', knownObjects: 'KnownObjects（已知对象）', objects: '对象', indices: '索引', syncRV: '存储到达的 rv',
    listener: '监听者', pendingNotes: '待处理通知', queue: '队列', dirty: '脏集合（dirty）', processing: '处理中（processing）',
    waitingHeap: '等待中（延迟加入）', expectations: '期望（expectations）', adds: '待创建', dels: '待删除', truncated: '还有 {n} 个未显示',
    allKeys: '（所有键）', lessons: '课程', start: '开始', next: '下一步', back: '上一步', stop: '停止',
    lessonsOff: '此版本没有课程（GET /api/lab/lessons 返回 {s}）', lessonStep: '课程第 {i} 步（实验台第 {n} 步）',
    intro: '简介', done: '完成：课程已结束', loadFailed: '无法载入记录：{e}',
    error: '错误：{e}', tombstone: '墓碑', nObjects: '{n} 个对象', reconciling: '正在调谐',
    satisfied: '已满足', unsatisfied: '等待缓存跟上', deleting: '正在删除', docs: '文档', source: '源码',
    phListing: '列举中', phWatching: '监听中', phBackingOff: '退避中', phStopped: '已停止'
  }
};
