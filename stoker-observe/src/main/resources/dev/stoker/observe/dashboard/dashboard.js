/*
 * Stoker's dashboard: draws PipelineStats snapshots ({"type":"stats","time_ms",..,"stats",..,"process",..},
 * optionally "samples": what the consumer trained on) as they arrive. Live: from the server-sent events at
 * ./events, which start with a "history" event (the run so far, kept by the server) so that a page opened mid-run
 * draws the whole run. Report (stoker bench --report): from the JSON embedded in the page, all at once.
 * The charts are Chart.js; this file only keeps the series and fills the tables.
 */
(function () {
  'use strict';

  const reportData = (function () {
    const el = document.getElementById('stoker-report');
    return el ? JSON.parse(el.textContent) : null;
  })();
  // A chart keeps the whole run: past this many points a series drops every other one (as the server's history does).
  const MAX_POINTS = 1200;
  const COLORS = ['#d84315', '#1565c0', '#2e7d32', '#6a1b9a', '#00838f', '#ef6c00', '#ad1457', '#4e342e', '#283593', '#558b2f'];
  const MIB = 1048576;

  const $ = (id) => document.getElementById(id);
  const fmt = (x, digits) => (x == null || !isFinite(x)) ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pct = (f) => fmt(100 * f, 0) + '%';
  const mib = (b) => (b == null || b < 0) ? 'n/a' : fmt(b / MIB, 0) + ' MiB';

  if (window.Chart) {
    Chart.defaults.animation = false;
    Chart.defaults.font.size = 11;
    Chart.defaults.maintainAspectRatio = false;
  }

  function lineChart(id, yTitle, yMax) {
    return new Chart($(id), {
      type: 'line',
      data: { datasets: [] },
      options: {
        parsing: false, normalized: true, spanGaps: true,
        elements: { point: { radius: 0 }, line: { borderWidth: 2, tension: 0 } },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'seconds since start' } },
          y: { beginAtZero: true, max: yMax, title: { display: !!yTitle, text: yTitle } }
        },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } }
      }
    });
  }

  // A bar per stage in each of the series ([label, colour]); options: the axes.
  function barChart(id, series, options) {
    return new Chart($(id), {
      type: 'bar',
      data: { labels: [], datasets: series.map(([label, colour]) => ({ label: label, data: [], backgroundColor: colour })) },
      options: Object.assign({ plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } } }, options)
    });
  }

  const charts = {
    throughput: lineChart('chart-throughput', 'items/s'),
    queues: lineChart('chart-queues', '% full', 100),
    memory: lineChart('chart-memory', 'MiB'),
    tasktime: barChart('chart-tasktime', [['p50', '#90caf9'], ['p90', '#42a5f5'], ['p99', '#1565c0']],
      { scales: { y: { type: 'logarithmic', title: { display: true, text: 'ms (log)' } } } }),
    shares: barChart('chart-shares', [['busy', '#d84315'], ['idle', '#b0bec5'], ['back-pressured', '#ffb300']],
      { indexAxis: 'y',
        scales: { x: { stacked: true, min: 0, max: 100, title: { display: true, text: '% of worker time' } }, y: { stacked: true } } })
  };

  const history = [];      // the snapshots drawn so far (the newest MAX_POINTS)
  let previous = null;     // the snapshot before the newest, for rates
  let replaying = false;   // drawing the server's history: the charts and tables are drawn once, at its end

  function seconds(msg) { return msg.stats.elapsedMillis / 1000; }

  function rate(now, before, pick) {
    if (!before) return null;
    const dt = (now.stats.elapsedMillis - before.stats.elapsedMillis) / 1000;
    return dt > 0 ? (pick(now) - pick(before)) / dt : null;
  }

  /** One dataset per series name, created on first sight, colour by order of appearance. */
  function series(chart, name, color, dashed) {
    let ds = chart.data.datasets.find((d) => d.label === name);
    if (!ds) {
      ds = { label: name, data: [], borderColor: color, backgroundColor: color, borderDash: dashed ? [6, 4] : [] };
      chart.data.datasets.push(ds);
    }
    return ds;
  }

  function push(chart, name, color, x, y, dashed) {
    if (y == null || !isFinite(y)) return;
    const ds = series(chart, name, color, dashed);
    ds.data.push({ x: x, y: y });
    if (ds.data.length > MAX_POINTS) ds.data = ds.data.filter((point, i) => i % 2 === 1 || i === ds.data.length - 1);
  }

  function stageColor(i) { return COLORS[i % COLORS.length]; }

  function onSnapshot(msg) {
    if (!msg || msg.type !== 'stats') return;
    const before = history.length ? history[history.length - 1] : null;
    if (before && msg.stats.elapsedMillis < before.stats.elapsedMillis) clear();   // a new run behind the same address
    previous = history.length ? history[history.length - 1] : null;
    history.push(msg);
    if (history.length > MAX_POINTS) history.shift();
    const x = seconds(msg);
    const stats = msg.stats;

    // Throughput: per stage from the deltas of items out; the consumer's samples/s when the job counts them.
    stats.stages.forEach((s, i) => {
      push(charts.throughput, s.name, stageColor(i), x, rate(msg, previous, (m) => stageOf(m, s.name).itemsOut));
    });
    if (msg.samples != null) {
      push(charts.throughput, 'samples/s (consumer)', '#000', x, rate(msg, previous, (m) => m.samples), true);
    } else {
      push(charts.throughput, 'delivered/s (sink)', '#000', x, rate(msg, previous, (m) => m.stats.sink.delivered), true);
    }

    // Queue occupancy now, per stage input queue and the sink buffer.
    stats.stages.forEach((s, i) => {
      if (s.inputQueue.capacity > 0) push(charts.queues, s.name, stageColor(i), x, 100 * s.inputQueue.size / s.inputQueue.capacity);
    });
    if (stats.sink.capacity > 0) push(charts.queues, 'sink', '#000', x, 100 * stats.sink.size / stats.sink.capacity, true);

    // Memory.
    const p = msg.process || {};
    push(charts.memory, 'heap used', '#1565c0', x, p.heap_used_bytes >= 0 ? p.heap_used_bytes / MIB : null);
    push(charts.memory, 'off-heap', '#d84315', x, p.offheap_bytes >= 0 ? p.offheap_bytes / MIB : null);
    push(charts.memory, 'RSS', '#2e7d32', x, p.rss_bytes >= 0 ? p.rss_bytes / MIB : null);

    // Per-stage distributions, from the newest snapshot.
    const working = stats.stages.filter((s) => s.kind !== 'source');
    charts.tasktime.data.labels = working.map((s) => s.name);
    charts.tasktime.data.datasets[0].data = working.map((s) => s.taskTime.p50Micros / 1000);
    charts.tasktime.data.datasets[1].data = working.map((s) => s.taskTime.p90Micros / 1000);
    charts.tasktime.data.datasets[2].data = working.map((s) => s.taskTime.p99Micros / 1000);
    charts.shares.data.labels = stats.stages.map((s) => s.name);
    charts.shares.data.datasets[0].data = stats.stages.map((s) => 100 * s.busyFraction);
    charts.shares.data.datasets[1].data = stats.stages.map((s) => 100 * s.idleFraction);
    charts.shares.data.datasets[2].data = stats.stages.map((s) => 100 * s.backPressuredFraction);

    if (replaying) return;
    if (!reportData) redraw();
    renderText(msg, previous);
  }

  function redraw() { Object.values(charts).forEach((c) => c.update('none')); }

  function clear() {
    history.length = 0;
    previous = null;
    [charts.throughput, charts.queues, charts.memory].forEach((c) => c.data.datasets.forEach((d) => { d.data.length = 0; }));
  }

  /** The run so far, as the server kept it: drawn from scratch (a reconnect sends it again), then redrawn once. */
  function onHistory(messages) {
    clear();
    replaying = true;
    try {
      messages.forEach(onSnapshot);
    } finally {
      replaying = false;
    }
    if (history.length) {
      redraw();
      renderText(history[history.length - 1], previous);
    }
  }

  function stageOf(msg, name) {
    return msg.stats.stages.find((s) => s.name === name) || { itemsOut: NaN };
  }

  function renderText(msg, before) {
    const stats = msg.stats;
    const verdict = $('verdict');
    verdict.textContent = stats.verdict.line;
    verdict.className = 'verdict ' + stats.verdict.state;
    verdict.dataset.bottleneck = stats.verdict.bottleneck;

    $('kpi-elapsed').textContent = fmt(stats.elapsedMillis / 1000, 1) + ' s';
    $('kpi-epoch').textContent = stats.epoch;
    if (msg.samples != null) {
      $('kpi-rate-label').textContent = 'samples/s now';
      $('kpi-rate').textContent = fmt(rate(msg, before, (m) => m.samples), 0);
    } else {
      $('kpi-rate-label').textContent = 'delivered/s now';
      $('kpi-rate').textContent = fmt(rate(msg, before, (m) => m.stats.sink.delivered), 1);
    }
    $('kpi-readiness').textContent = pct(stats.sink.dataReadiness);
    $('kpi-failures').textContent = stats.failures;
    const p = msg.process || {};
    $('kpi-heap').textContent = mib(p.heap_used_bytes) + ' / ' + mib(p.heap_max_bytes);
    $('kpi-offheap').textContent = mib(p.offheap_bytes);
    // Where the off-heap memory is, by the memory account's kinds (those holding any), as the tile's tooltip.
    $('kpi-offheap').title = Object.entries(p.memory_bytes || {}).filter((e) => e[1] > 0)
      .map((e) => e[0].replace(/_/g, ' ') + ': ' + mib(e[1])).join('\n');
    $('kpi-rss').textContent = mib(p.rss_bytes);

    const body = $('stage-table').tBodies[0];
    const rows = stats.stages.map((s, i) => {
      const q = s.inputQueue;
      const cells = [
        ['stage', '<span class="swatch" style="background:' + stageColor(i) + '"></span>' + escapeHtml(s.name)],
        ['kind', escapeHtml(s.kind)], ['concurrency', s.concurrency],
        ['rate', fmt(rate(msg, before, (m) => stageOf(m, s.name).itemsOut), 1)],
        ['in', s.itemsIn], ['out', s.itemsOut], ['failures', s.failures],
        ['p50', fmt(s.taskTime.p50Micros / 1000, 2)], ['p99', fmt(s.taskTime.p99Micros / 1000, 2)],
        ['busy', pct(s.busyFraction)], ['idle', pct(s.idleFraction)], ['bp', pct(s.backPressuredFraction)],
        ['queue', q.capacity === 0 ? '–' : q.size + '/' + q.capacity + ' (full ' + pct(q.fullFraction) + ')']];
      const cls = s.name === stats.verdict.bottleneck ? ' class="bottleneck"' : '';
      return '<tr data-stage="' + escapeHtml(s.name) + '"' + cls + '>'
        + cells.map((c) => '<td data-col="' + c[0] + '">' + c[1] + '</td>').join('') + '</tr>';
    });
    body.innerHTML = rows.join('');

    const reasons = Object.entries(stats.failuresByReason || {}).sort((a, b) => b[1] - a[1]);
    $('failures').innerHTML = reasons.length
      ? reasons.map((r) => '<tr><td>' + escapeHtml(r[0]) + '</td><td>' + r[1] + '</td></tr>').join('')
      : '<tr><td class="none">none</td></tr>';

    const sink = stats.sink;
    $('sink').innerHTML = kv([
      ['delivered', sink.delivered],
      ['delivered/s (whole run)', fmt(stats.outputsPerSecond, 1)],
      ['data readiness', pct(sink.dataReadiness)],
      ['consumer waited', fmt(sink.consumerWaitMillis / 1000, 2) + ' s'],
      ['buffer now', sink.size + '/' + sink.capacity]]);
  }

  function kv(pairs) {
    return pairs.map((p) => '<tr><td>' + escapeHtml(String(p[0])) + '</td><td>' + escapeHtml(String(p[1])) + '</td></tr>').join('');
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  function setConnection(state, text) {
    const el = $('connection');
    el.className = 'connection ' + state;
    el.textContent = text;
  }

  function renderReport(data) {
    document.title = 'Stoker bench report';
    $('title').textContent = 'bench report';
    setConnection('live', 'report of ' + (data.series.length) + ' snapshots');
    $('throughput-title').textContent = 'Throughput (samples/s, and items/s per stage)';
    const r = data.result || {};
    $('report-summary').hidden = false;
    $('summary-table').innerHTML = kv([
      ['dataset', r.dataset + ' (' + r.videos + ' videos)'],
      ['samples/s (steady state)', fmt(r.samples_per_second, 1)],
      ['frames/s', fmt(r.frames_per_second, 1)],
      ['decode efficiency', r.decode_efficiency == null ? 'n/a' : fmt(r.decode_efficiency, 2)],
      ['first batch', fmt(r.first_batch_seconds, 2) + ' s'],
      ['decoded frames per clip', fmt(r.decoded_frames_per_clip, 1)],
      ['samples / batches', r.samples + ' / ' + r.batches],
      ['elapsed', fmt(r.elapsed_seconds, 1) + ' s on ' + r.cores + ' cores']]);
    data.series.forEach(onSnapshot);
    if (r.stats && data.series.length < 2) {   // too few snapshots for rates: at least the final numbers
      renderText({ type: 'stats', stats: r.stats, process: data.series.length ? data.series[data.series.length - 1].process : {} }, null);
    }
    if (r.headspace) {
      $('headspace').hidden = false;
      $('headspace-table').innerHTML = kv(flatten(r.headspace, ''));
    }
    redraw();
  }

  /** A nested JSON object as [key path, value] rows. */
  function flatten(o, prefix) {
    if (o === null || typeof o !== 'object') return [[prefix || 'value', typeof o === 'number' ? fmt(o, 3) : o]];
    return Object.entries(o).flatMap((e) => flatten(e[1], prefix ? prefix + '.' + e[0] : e[0]));
  }

  function connect() {
    fetch('info').then((r) => r.json()).then((info) => {
      $('title').textContent = info.title;
      document.title = 'stoker ' + info.title;
    }).catch(() => {});
    const events = new EventSource('events');
    events.onopen = () => setConnection('live', 'live');
    events.addEventListener('history', (e) => {
      setConnection('live', 'live');
      onHistory(JSON.parse(e.data));
    });
    events.onmessage = (e) => {
      setConnection('live', 'live');
      onSnapshot(JSON.parse(e.data));
    };
    events.onerror = () => setConnection('lost', 'disconnected: the job ended or the server stopped; retrying…');
  }

  window.StokerDashboard = { onSnapshot: onSnapshot, history: history };
  if (reportData) {
    renderReport(reportData);
  } else {
    connect();
  }
})();
