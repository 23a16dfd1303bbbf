package dev.resurfacer.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ReportRenderingTest {
  private static TableStats stats(long small, long large) {
    return new TableStats(
        small + large,
        small * 1000 + large * (600L << 20),
        100,
        small,
        2,
        300,
        4,
        3,
        9000,
        List.of(
            new TableStats.SizeBucket("< 1 MB", 0, 1 << 20, small, small * 1000),
            new TableStats.SizeBucket(
                ">= 512 MB", 512L << 20, Long.MAX_VALUE, large, large * (600L << 20))));
  }

  private static final RunReport REPORT = new RunReport(
      1,
      "commit",
      "2026-11-29T01:00:00Z",
      4200,
      List.of(
          new TableReport(
              "lake",
              "raw.done",
              Outcome.DONE,
              null,
              3000,
              stats(40, 0),
              stats(0, 1),
              List.of(new OperationResult(
                  "compact",
                  Outcome.DONE,
                  "rewrote 40 file(s) <into> 1",
                  2500,
                  Map.of("rewritten_files", 40L)))),
          new TableReport(
              "lake",
              "raw.held",
              Outcome.SKIPPED,
              "skipped: another maintain run holds the lease",
              10,
              stats(5, 0),
              null,
              List.of(new OperationResult(
                  "compact", Outcome.SKIPPED, "another run holds the table's lease", 0, Map.of()))),
          new TableReport(
              "lake",
              "raw \"odd\"",
              Outcome.FAILED,
              "cannot open table: gone",
              5,
              null,
              null,
              List.of())));

  @Test
  void htmlHasOneInlineSvgPerHistogramAndEscapesText() {
    String html = HtmlReport.render(REPORT);
    // before+after for the done table, before only for the skipped one, none for the one that never
    // opened
    assertThat(Pattern.compile("<svg ").matcher(html).results().count()).isEqualTo(3);
    assertThat(html)
        .contains("rewrote 40 file(s) &lt;into&gt; 1")
        .contains("lake.raw &quot;odd&quot;")
        .contains("<span class=\"done\">1 done</span>")
        .contains("<span class=\"failed\">1 failed</span>")
        .doesNotContain("<script")
        .doesNotContain("<link")
        .doesNotContain("<img");
    assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
  }

  @Test
  void textAndPrometheus() {
    assertThat(TextReport.render(REPORT))
        .contains("lake.raw.done  done  3.0s")
        .contains("data files 40 -> 1 (39.1 KB -> 600 MB), small 40 -> 0")
        .contains("  compact                  done              2.5s  rewrote 40 file(s) <into> 1")
        .endsWith(
            "commit: 3 table(s): 1 done, 0 previewed, 1 skipped, 0 refused, 1 failed in 4.2s");
    String prom = PrometheusReport.render(REPORT);
    assertThat(prom)
        .contains("resurfacer_maintain_last_run_timestamp_seconds 1795914000\n")
        .contains(
            "resurfacer_maintain_table_outcome{catalog=\"lake\",table=\"raw \\\"odd\\\"\",outcome=\"failed\"} 1\n")
        .contains(
            "resurfacer_maintain_operation_count{catalog=\"lake\",table=\"raw.done\",operation=\"compact\",counter=\"rewritten_files\"} 40\n")
        .contains("resurfacer_table_data_files{catalog=\"lake\",table=\"raw.done\"} 1\n")
        .contains("resurfacer_table_data_files{catalog=\"lake\",table=\"raw.held\"} 5\n");
    assertThat(REPORT.exitCode()).isEqualTo(1);
    assertThat(REPORT.summary()).containsEntry("tables", 3L).containsEntry("skipped", 1L);
  }
}
