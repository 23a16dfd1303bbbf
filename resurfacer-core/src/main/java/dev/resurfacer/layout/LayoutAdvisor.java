package dev.resurfacer.layout;

import dev.resurfacer.units.ByteSizes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * From recorded scans, a sample of the table's rows and its current files: which layout and target
 * file size to compact into. Format-neutral; Iceberg and Delta supply the sample, the files' ranges
 * and how a literal maps onto a key.
 */
public final class LayoutAdvisor {
  /** The smallest target file size advise proposes: below it per-file costs (metadata, opens) dominate. */
  public static final long MIN_TARGET = 8L << 20;
  /** A column filtered by fewer scans than this share is not a sort or z-order candidate. */
  static final double MIN_COLUMN_SHARE = 0.05;
  /** At most this many scans are simulated (an even subset of the most recent). */
  static final int MAX_SIMULATED = 5_000;

  /**
   * @param minGain the cut in expected cost (0-1) a change must bring to be recommended
   * @param tableTarget the table's own target file size
   * @param sorts whether the format's compaction writes sort orders; without (Delta), a sort by one
   *     column is proposed as the z-order of that one column (the same row order) and sorts by two are not proposed
   */
  public record Settings(double minGain, long tableTarget, boolean sorts) {
    public Settings(double minGain, long tableTarget) {
      this(minGain, tableTarget, true);
    }
  }

  /** What the format reads for the advisor. */
  public record TableView(
      LayoutSimulator.Sample sample,
      int sampleFiles,
      List<LayoutSimulator.FileRanges> currentFiles,
      LayoutSimulator.Keys keys,
      long totalDataFiles) {}

  /** @param eraOf the era a scanned snapshot belongs to (the snapshot that began it), or null when unknown */
  public record Era(long since, String sinceTime) {}

  private LayoutAdvisor() {}

  public static Advice advise(
      String table,
      ScanReports.Loaded loaded,
      TableView view,
      Settings settings,
      LongFunction<Era> eraOf) {
    List<RecordedScan> scans = loaded.scans();
    List<Advice.Era> eras = eras(scans, eraOf);
    if (scans.isEmpty()) {
      return new Advice(
          table,
          0,
          0,
          loaded.skipped(),
          loaded.otherTables(),
          loaded.dropped(),
          view.sample().rows(),
          view.sampleFiles(),
          List.of(),
          null,
          List.of(),
          null,
          "no scan reports for this table: nothing to learn from",
          eras);
    }
    List<Advice.ColumnUse> columns = columns(scans, view);
    List<RecordedScan> simulated = subset(scans);
    List<LayoutSimulator.Prune> queries =
        LayoutSimulator.compile(simulated, view.sample(), view.keys());
    LayoutSimulator.Outcome now = LayoutSimulator.evaluate(view.currentFiles(), queries);
    Advice.Candidate current = new Advice.Candidate(
        "current files",
        null,
        null,
        0,
        now.files(),
        now.filesPerQuery(),
        now.bytesPerQuery(),
        now.cost());

    List<String> keyColumns = columns.stream()
        .filter(c -> c.share() >= MIN_COLUMN_SHARE)
        .map(Advice.ColumnUse::column)
        .filter(view.sample().columns()::contains)
        .limit(3)
        .toList();
    List<Layout> layouts = new ArrayList<>();
    layouts.add(new Layout.BinPack());
    keyColumns.forEach(c -> layouts.add(
        settings.sorts() ? new Layout.Sort(List.of(c)) : new Layout.ZOrder(List.of(c))));
    if (keyColumns.size() >= 2) {
      if (settings.sorts()) {
        layouts.add(new Layout.Sort(keyColumns.subList(0, 2)));
      }
      layouts.add(new Layout.ZOrder(keyColumns.subList(0, 2)));
    }
    if (keyColumns.size() >= 3) {
      layouts.add(new Layout.ZOrder(keyColumns));
    }
    List<Advice.Candidate> candidates = new ArrayList<>();
    for (Layout layout : layouts) {
      for (long target : targets(settings.tableTarget())) {
        LayoutSimulator.Outcome o =
            LayoutSimulator.evaluate(LayoutSimulator.files(view.sample(), layout, target), queries);
        candidates.add(new Advice.Candidate(
            layout.describe(),
            layout.strategy(),
            layout.orderBy(),
            target,
            o.files(),
            o.filesPerQuery(),
            o.bytesPerQuery(),
            o.cost()));
      }
    }
    candidates.sort(Comparator.comparingDouble(Advice.Candidate::cost)
        .thenComparing(Advice.Candidate::targetFileSize, Comparator.reverseOrder()));
    Advice.Candidate best = candidates.get(0);
    double gain = current.cost() <= 0 ? 0 : 1 - best.cost() / current.cost();
    double reduction =
        best.filesPerQuery() <= 0 ? 0 : current.filesPerQuery() / best.filesPerQuery();
    Advice.Recommendation rec = null;
    String reason;
    if (view.sample().rows() == 0) {
      reason =
          "no rows sampled (an empty table, or no filtered column the simulation can key): nothing to simulate";
    } else if (gain < settings.minGain()) {
      reason = String.format(
          Locale.ROOT,
          "nothing worth doing: the best layout simulated (%s, %s files) would cut the expected read cost by %.0f%%, below the %.0f%% threshold",
          best.layout(),
          ByteSizes.format(best.targetFileSize()),
          Math.max(0, gain * 100),
          settings.minGain() * 100);
    } else {
      rec = new Advice.Recommendation(
          best.strategy(),
          best.orderBy(),
          best.targetFileSize(),
          best.layout(),
          best.filesPerQuery(),
          current.filesPerQuery(),
          reduction,
          gain);
      Advice.Candidate binpackSame = candidates.stream()
          .filter(
              c -> c.strategy().equals("binpack") && c.targetFileSize() == best.targetFileSize())
          .findFirst()
          .orElse(best);
      reason = String.format(
          Locale.ROOT,
          "%s at %s files: %.1f data files per query instead of %.1f now (%.1fx fewer; a bin-pack at the same size: %.1f), "
              + "expected read cost %.0f%% lower; %s",
          best.layout(),
          ByteSizes.format(best.targetFileSize()),
          best.filesPerQuery(),
          current.filesPerQuery(),
          reduction,
          binpackSame.filesPerQuery(),
          gain * 100,
          why(columns, keyColumns));
    }
    return new Advice(
        table,
        scans.size(),
        simulated.size(),
        loaded.skipped(),
        loaded.otherTables(),
        loaded.dropped(),
        view.sample().rows(),
        view.sampleFiles(),
        columns,
        current,
        candidates,
        rec,
        reason,
        eras);
  }

  private static String why(List<Advice.ColumnUse> columns, List<String> keys) {
    List<String> parts = new ArrayList<>();
    for (Advice.ColumnUse c : columns) {
      if (keys.contains(c.column())) {
        parts.add(String.format(
            Locale.ROOT,
            "%s is filtered in %.0f%% of scans (%s)",
            c.column(),
            c.share() * 100,
            c.kinds()));
      }
    }
    return String.join(", ", parts);
  }

  /** The table's target and its halvings down to {@link #MIN_TARGET} (only its own when it is smaller). */
  static List<Long> targets(long tableTarget) {
    List<Long> out = new ArrayList<>();
    for (long t = Math.max(1, tableTarget); t >= Math.min(MIN_TARGET, tableTarget); t /= 2) {
      out.add(t);
    }
    return out;
  }

  private static List<RecordedScan> subset(List<RecordedScan> scans) {
    if (scans.size() <= MAX_SIMULATED) {
      return scans;
    }
    List<RecordedScan> out = new ArrayList<>(MAX_SIMULATED);
    for (int i = 0; i < MAX_SIMULATED; i++) {
      out.add(scans.get((int) ((long) i * scans.size() / MAX_SIMULATED)));
    }
    return out;
  }

  private static List<Advice.ColumnUse> columns(List<RecordedScan> scans, TableView view) {
    Map<String, int[]> filtered = new LinkedHashMap<>();
    Map<String, Map<String, Integer>> kinds = new LinkedHashMap<>();
    Map<String, double[]> fraction = new LinkedHashMap<>();
    Map<String, Integer> projected = new TreeMap<>();
    for (RecordedScan s : scans) {
      long total = s.dataFilesScanned() + s.dataFilesSkipped();
      double f = total == 0 ? 1 : (double) s.dataFilesScanned() / total;
      for (String c : s.filter().columns()) {
        filtered.computeIfAbsent(c, k -> new int[1])[0]++;
        kinds
            .computeIfAbsent(c, k -> new TreeMap<>())
            .merge(s.filter().kindOf(c) == null ? "other" : s.filter().kindOf(c), 1, Integer::sum);
        fraction.computeIfAbsent(c, k -> new double[1])[0] += f;
      }
      s.projected().forEach(p -> projected.merge(p, 1, Integer::sum));
    }
    List<Advice.ColumnUse> out = new ArrayList<>();
    filtered.forEach((c, n) -> {
      StringBuilder k = new StringBuilder();
      kinds
          .get(c)
          .forEach((kind, count) ->
              k.append(k.isEmpty() ? "" : ", ").append(kind).append(' ').append(count));
      out.add(new Advice.ColumnUse(
          c,
          n[0],
          (double) n[0] / scans.size(),
          k.toString(),
          fraction.get(c)[0] / n[0],
          projected.getOrDefault(c, 0)));
    });
    out.sort(Comparator.comparingInt(Advice.ColumnUse::filtered)
        .reversed()
        .thenComparing(Advice.ColumnUse::column));
    return out;
  }

  private static List<Advice.Era> eras(List<RecordedScan> scans, LongFunction<Era> eraOf) {
    Map<Long, double[]> sums = new LinkedHashMap<>();
    Map<Long, Era> starts = new LinkedHashMap<>();
    for (RecordedScan s : scans) {
      Era e = eraOf.apply(s.snapshotId());
      if (e == null) {
        continue;
      }
      starts.putIfAbsent(e.since(), e);
      double[] acc = sums.computeIfAbsent(e.since(), k -> new double[3]);
      acc[0]++;
      acc[1] += s.dataFilesScanned();
      acc[2] += s.bytesScanned();
    }
    List<Advice.Era> out = new ArrayList<>();
    sums.forEach((since, acc) -> out.add(new Advice.Era(
        since, starts.get(since).sinceTime(), (int) acc[0], acc[1] / acc[0], acc[2] / acc[0])));
    return out;
  }
}
