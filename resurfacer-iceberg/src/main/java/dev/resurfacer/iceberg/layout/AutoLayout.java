package dev.resurfacer.iceberg.layout;

import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.AutoLayoutSteps;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Compact;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * {@code compact.layout: auto}: the compaction a maintenance run does is the one {@code advise}
 * recommends when its expected gain passes {@code layout-min-gain}; the layout applied is recorded
 * in the table property {@link #APPLIED} so later runs keep compacting new files into it instead of
 * falling back to bin-pack (which would merge the chosen files back into big unordered ones).
 */
public final class AutoLayout {
  /** {@code strategy|order|target-bytes} of the layout auto last applied. */
  public static final String APPLIED = "resurfacer.layout.applied";

  private AutoLayout() {}

  /**
   * @param compact what to run (the layout settings removed)
   * @param change whether the run changes the layout (then every file is rewritten, and {@link #APPLIED} set after)
   * @param decision one sentence for the run report: what was decided and the evidence
   * @param metrics the evidence as counters (files per query ×100, gain in percent, scans)
   */
  public record Decision(
      Compact compact,
      boolean change,
      String decision,
      Map<String, Long> metrics,
      String applied) {}

  public static Decision decide(String name, Table table, Compact op) {
    Advice a = IcebergLayouts.advise(
        name,
        table,
        ScanReports.read(AutoLayoutSteps.reports(op), name),
        AutoLayoutSteps.minGain(op));
    Compact base = op.withoutLayoutSettings();
    Map<String, Long> m = AutoLayoutSteps.metrics(a);
    Advice.Recommendation r = a.recommendation();
    if (r != null) {
      return new Decision(
          AutoLayoutSteps.applying(r, base),
          true,
          "layout auto: applying " + a.reason(),
          m,
          r.strategy() + "|" + (r.orderBy() == null ? "" : r.orderBy()) + "|" + r.targetFileSize());
    }
    String applied = table.properties().get(APPLIED);
    if (applied != null) {
      String[] parts = applied.split("\\|", -1);
      if (parts.length == 3) {
        Compact kept = new Compact(parts[0], parts[1].isEmpty() ? null : parts[1], base.options())
            .withOption("target-file-size-bytes", parts[2]);
        return new Decision(
            kept,
            false,
            String.format(
                Locale.ROOT,
                "layout auto: keeping %s at %s bytes (%s)",
                parts[0] + (parts[1].isEmpty() ? "" : " " + parts[1]),
                parts[2],
                a.reason()),
            m,
            null);
      }
    }
    return new Decision(
        base,
        false,
        "layout auto: the configured " + base.strategy() + " (" + a.reason() + ")",
        m,
        null);
  }

  /** Records the layout applied, once the compaction committed. */
  public static void recordApplied(Table table, String applied) {
    table.updateProperties().set(APPLIED, applied).commit();
  }
}
