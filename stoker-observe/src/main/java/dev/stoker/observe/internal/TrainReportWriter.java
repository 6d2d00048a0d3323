package dev.stoker.observe.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code stoker train --report FILE}: one self-contained HTML file with the dashboard's styles and Chart.js
 * inlined, and the {@code --json} result embedded ({@code <script id="stoker-train" type="application/json">}):
 * the summary, the loss over the steps, and each step's time split into training and waiting for data.
 */
public final class TrainReportWriter {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TrainReportWriter() { }

    public static String html(JsonNode result) throws JsonProcessingException {
        String embedded = JSON.writeValueAsString(result).replace("<", "\\u003c");
        return """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <title>Stoker train</title>
                <style>
                %s</style>
                <script>
                %s
                </script>
                </head>
                <body>
                <header><h1><span class="brand">stoker</span> train</h1></header>
                <section id="verdict" class="verdict consumer-bound"></section>
                <section class="panel"><h2>Run</h2><table id="summary-table" class="kv"></table></section>
                <div class="grid">
                  <section class="panel"><h2>Loss</h2><div class="chart"><canvas id="loss-chart"></canvas></div></section>
                  <section class="panel"><h2>Step time (ms): training and waiting for data</h2>
                    <div class="chart"><canvas id="step-chart"></canvas></div></section>
                </div>
                <script id="stoker-train" type="application/json">%s</script>
                <script>
                %s
                </script>
                </body>
                </html>
                """.formatted(DashboardAssets.text(DashboardAssets.STYLES),
                BenchReportWriter.inlineScript(DashboardAssets.text(DashboardAssets.CHART_JS)), embedded, SCRIPT);
    }

    private static final String SCRIPT = """
            const r = JSON.parse(document.getElementById('stoker-train').textContent);
            const s = r.steps;
            const steps = s.loss.map((_, i) => i + 1);
            const fmt = (v, d) => (v === null || v === undefined || Number.isNaN(v)) ? '–' : Number(v).toFixed(d);
            document.getElementById('verdict').textContent = r.headspace ? 'headspace ' + fmt(r.headspace.headspace, 2)
                + 'x: ' + fmt(s.data_wait_share * 100, 0) + '% of the time waiting for data' : 'no headspace verdict';
            const rows = [['dataset', r.dataset], ['model', r.model], ['batch', r.batch_size],
                ['steps (warm-up)', s.steps + ' (' + s.warmup_steps + ')'],
                ['step p50 / p99 ms', fmt(s.step_ms_p50, 1) + ' / ' + fmt(s.step_ms_p99, 1)],
                ['samples/s', fmt(s.samples_per_second, 1)], ['data wait', fmt(s.data_wait_share * 100, 0) + '%'],
                ['loss first / last', fmt(s.loss_first, 4) + ' / ' + fmt(s.loss_last, 4)],
                ['floor step ms (cached batches)', r.headspace ? fmt(r.headspace.floor_step_ms, 1) : '–'],
                ['failures', r.failures]];
            const table = document.getElementById('summary-table');
            for (const [k, v] of rows) {
              const tr = table.insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = v;
            }
            const opts = {animation: false, responsive: true, maintainAspectRatio: false,
                scales: {x: {title: {display: true, text: 'step'}}}};
            new Chart(document.getElementById('loss-chart'), {type: 'line', options: opts,
                data: {labels: steps, datasets: [{label: 'loss', data: s.loss, borderColor: '#d84315', pointRadius: 0}]}});
            new Chart(document.getElementById('step-chart'), {type: 'bar',
                options: {...opts, scales: {x: {stacked: true, title: {display: true, text: 'step'}}, y: {stacked: true}}},
                data: {labels: steps, datasets: [
                    {label: 'train ms', data: s.train_ms, backgroundColor: '#1565c0'},
                    {label: 'wait ms', data: s.wait_ms, backgroundColor: '#f9a825'}]}});
            """;
}
