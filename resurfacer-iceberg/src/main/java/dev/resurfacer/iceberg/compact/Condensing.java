package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.upgrade.RowLineage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.actions.ImmutableRewriteDataFiles;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Condensing: aged partitions move to a coarser partition spec (day to month, month or day to year,
 * hour to day). The coarse spec is added to the table <em>without</em> becoming its default, so new
 * data keeps landing in the fine spec; each coarse partition older than the threshold is rewritten
 * from its fine partitions and committed on its own as a {@code replace}, carrying onto the coarse
 * files the deletes a writer committed meanwhile on the fine ones ({@link CarryingCommits}).
 *
 * <pre>
 * CondenseResult r = Condensing.execute(table, Condensing.Granularity.MONTH, Duration.ofDays(90), options, true);
 * </pre>
 */
public final class Condensing {
  public enum Granularity {
    DAY,
    MONTH,
    YEAR
  }

  private Condensing() {}

  /** One coarse partition: the fine partitions it gathers, and what happened to it. */
  public record Partition(String partition, int files, long bytes, String status, String message) {}

  /**
   * @param doesNotApply why condensing does not apply to the table (no time field of the default spec
   *     finer than the target, or two of them), else null; then nothing was read or changed
   */
  public record CondenseResult(
      String table,
      String field,
      String from,
      String to,
      Integer coarseSpecId,
      boolean specAdded,
      List<Partition> partitions,
      boolean committed,
      String doesNotApply) {}

  /** The default spec's one time field finer than the target, or why there is none to condense. */
  private record Candidate(int position, String doesNotApply) {}

  private record Group(StructLike coarseValue, List<FileScanTask> tasks) {}

  /**
   * What {@link #execute} would condense: the coarse partitions entirely older than {@code olderThan},
   * each with its fine files; {@code doesNotApply} says why there are none to look for (then the
   * other parts are null).
   */
  public static final class Plan {
    private final Table table;
    private final Granularity to;
    private final Duration olderThan;
    private final CompactionOptions options;
    private final String doesNotApply;
    private final int position;
    private final PartitionSpec fine;
    private final PartitionSpec existingCoarse;
    private final PartitionSpec coarse;
    private final Map<String, Group> groups;

    private Plan(
        Table table,
        Granularity to,
        Duration olderThan,
        CompactionOptions options,
        String doesNotApply,
        int position,
        PartitionSpec fine,
        PartitionSpec existingCoarse,
        PartitionSpec coarse,
        Map<String, Group> groups) {
      this.table = table;
      this.to = to;
      this.olderThan = olderThan;
      this.options = options;
      this.doesNotApply = doesNotApply;
      this.position = position;
      this.fine = fine;
      this.existingCoarse = existingCoarse;
      this.coarse = coarse;
      this.groups = groups;
    }

    /** The plan as a result that committed nothing: each coarse partition it would condense. */
    public CondenseResult preview() {
      return unchanged("would condense");
    }

    private CondenseResult unchanged(String status) {
      String coarseTransform = to.name().toLowerCase(Locale.ROOT);
      if (doesNotApply != null) {
        return new CondenseResult(
            table.name(), null, null, coarseTransform, null, false, List.of(), false, doesNotApply);
      }
      List<Partition> results = new ArrayList<>();
      groups.forEach((label, g) -> results.add(new Partition(
          label,
          g.tasks().size(),
          g.tasks().stream().mapToLong(t -> t.file().fileSizeInBytes()).sum(),
          status,
          null)));
      PartitionField field = fine.fields().get(position);
      return new CondenseResult(
          table.name(),
          field.name(),
          field.transform().toString(),
          coarseTransform,
          existingCoarse == null ? null : existingCoarse.specId(),
          false,
          results,
          false,
          null);
    }
  }

  /** What {@code condense} asks of {@code table}; reads the table, changes nothing. */
  public static Plan plan(Table table, dev.resurfacer.maintain.Condense condense) {
    CompactionOptions options = CompactionOptions.defaults();
    if (condense.memoryBytes() != null) {
      options = options.withMemory(condense.memoryBytes());
    }
    return plan(
        table,
        Granularity.valueOf(condense.to().toUpperCase(Locale.ROOT)),
        condense.olderThan(),
        options);
  }

  /** Reads the table, changes nothing. */
  public static Plan plan(
      Table table, Granularity to, Duration olderThan, CompactionOptions options) {
    table.refresh();
    PartitionSpec fine = table.spec();
    Candidate candidate = candidateField(fine, to);
    if (candidate.doesNotApply() != null) {
      return new Plan(
          table, to, olderThan, options, candidate.doesNotApply(), -1, fine, null, null, Map.of());
    }
    int pos = candidate.position();
    PartitionField field = fine.fields().get(pos);
    String coarseTransform = to.name().toLowerCase(Locale.ROOT);
    PartitionSpec existingCoarse = findCoarse(table, fine, field, coarseTransform);
    PartitionSpec coarse = existingCoarse != null
        ? existingCoarse
        : coarseSpec(table, fine, field, coarseTransform, -1);
    return new Plan(
        table,
        to,
        olderThan,
        options,
        null,
        pos,
        fine,
        existingCoarse,
        coarse,
        plan(table, fine, pos, coarse, to, olderThan));
  }

  /** Condenses each coarse partition of the plan in its own commit. */
  public static CondenseResult execute(Plan plan) {
    return execute(plan, g -> {});
  }

  /** @param beforeCommit runs after each coarse partition is written and verified, before its commit (tests commit a writer's change there) */
  static CondenseResult execute(
      Plan plan, java.util.function.Consumer<RewriteFileGroup> beforeCommit) {
    if (plan.doesNotApply != null || plan.groups.isEmpty()) {
      return plan.unchanged("nothing to do");
    }
    Table table = plan.table;
    Granularity to = plan.to;
    Duration olderThan = plan.olderThan;
    CompactionOptions options = plan.options;
    PartitionSpec fine = plan.fine;
    int pos = plan.position;
    PartitionField field = fine.fields().get(pos);
    String coarseTransform = to.name().toLowerCase(Locale.ROOT);
    PartitionSpec existingCoarse = plan.existingCoarse;
    PartitionSpec coarse = plan.coarse;
    Map<String, Group> groups = plan.groups;
    List<Partition> results = new ArrayList<>();

    // each coarse partition commits on its own: its rows need the ids the first v3 commit gives
    // them before any is rewritten
    boolean lineageAssigned = RowLineage.assign(table, Compaction.SUMMARY_PROPERTY) != null;
    boolean added = false;
    if (existingCoarse == null) {
      coarse = addSpecKeepingDefault(table, coarse, fine, field, coarseTransform);
      added = true;
    }
    if (added || lineageAssigned) {
      groups = plan(table, fine, pos, coarse, to, olderThan);
    }
    Path scratch = options.newScratchDir("resurfacer-condense-");
    try {
      GroupRewriter.Settings settings = new GroupRewriter.Settings(
          options.memoryBytes(),
          Runtime.getRuntime().availableProcessors(),
          scratch,
          GroupPlanner.targetFileSize(table, options),
          new ResolvedOrdering.None());
      int index = 0;
      for (Map.Entry<String, Group> e : groups.entrySet()) {
        table.refresh();
        long starting = table.currentSnapshot().snapshotId();
        List<FileScanTask> tasks = e.getValue().tasks();
        long bytes = tasks.stream().mapToLong(t -> t.file().fileSizeInBytes()).sum();
        RewriteFileGroup group = new RewriteFileGroup(
            ImmutableRewriteDataFiles.FileGroupInfo.builder()
                .globalIndex(index)
                .partitionIndex(0)
                .partition(e.getValue().coarseValue())
                .build(),
            tasks,
            coarse.specId(),
            Long.MAX_VALUE,
            bytes,
            1);
        // rows move to another spec: the generic runner computes each row's coarse partition itself
        RewrittenGroup r =
            GroupRewrite.run(table, group, index++, new GenericRewriter(), settings, options);
        if (r.verified()) {
          beforeCommit.accept(group);
          // as compaction commits: deletes a writer committed meanwhile on the fine files are
          // carried onto the coarse ones
          CarryingCommits commits = new CarryingCommits(
              table,
              starting,
              true,
              org.apache.iceberg.expressions.Expressions.alwaysTrue(),
              1,
              null,
              Map.of(Compaction.SUMMARY_PROPERTY, "condense"),
              java.util.function.UnaryOperator.identity());
          commits.offer(group);
          CarryingCommits.Outcome outcome = commits.finish();
          if (outcome.committed().contains(group)) {
            results.add(new Partition(
                e.getKey(), tasks.size(), bytes, "committed", outcome.notes().get(group)));
          } else {
            results.add(new Partition(
                e.getKey(),
                tasks.size(),
                bytes,
                "failed",
                outcome.failures().getOrDefault(group, "not committed; new files removed")));
          }
        } else {
          results.add(new Partition(
              e.getKey(),
              tasks.size(),
              bytes,
              r.verdict().name().toLowerCase(Locale.ROOT),
              r.message()));
        }
      }
    } finally {
      DuckDbRewriter.deleteRecursively(scratch);
    }
    return new CondenseResult(
        table.name(),
        field.name(),
        field.transform().toString(),
        coarseTransform,
        coarse.specId(),
        added,
        results,
        results.stream().allMatch(p -> p.status().equals("committed")),
        null);
  }

  /**
   * The one time field of the default spec that is finer than {@code to}. None (an unpartitioned
   * table; identity, bucket or truncate fields only; months or years for {@code --to month}) or two
   * (it cannot tell which to coarsen) mean condensing does not apply to the table.
   */
  private static Candidate candidateField(PartitionSpec spec, Granularity to) {
    List<Integer> candidates = new ArrayList<>();
    for (int i = 0; i < spec.fields().size(); i++) {
      String t = spec.fields().get(i).transform().toString();
      boolean finer = switch (to) {
        case DAY -> t.equals("hour");
        case MONTH -> t.equals("day") || t.equals("hour");
        case YEAR -> t.equals("day") || t.equals("month") || t.equals("hour");
      };
      if (finer) {
        candidates.add(i);
      }
    }
    String target = to.name().toLowerCase(Locale.ROOT);
    if (candidates.isEmpty()) {
      return new Candidate(
          -1,
          "does not apply: the default spec "
              + (spec.isUnpartitioned()
                  ? "is unpartitioned"
                  : "("
                      + spec.fields().stream()
                          .map(f -> f.name() + " " + f.transform())
                          .collect(java.util.stream.Collectors.joining(", "))
                      + ") has no time partition finer than " + target));
    }
    if (candidates.size() > 1) {
      return new Candidate(
          -1,
          "does not apply: the default spec has " + candidates.size() + " time fields finer than "
              + target + " ("
              + String.join(
                  ", ",
                  candidates.stream().map(i -> spec.fields().get(i).name()).toList())
              + "); it cannot tell which one to coarsen");
    }
    return new Candidate(candidates.get(0), null);
  }

  private static PartitionSpec coarseSpec(
      Table table, PartitionSpec fine, PartitionField field, String transform, int specId) {
    PartitionSpec.Builder b =
        PartitionSpec.builderFor(table.schema()).withSpecId(Math.max(0, specId));
    String source = table.schema().findColumnName(field.sourceId());
    for (PartitionField f : fine.fields()) {
      if (f.fieldId() == field.fieldId()) {
        switch (transform) {
          case "day" -> b.day(source);
          case "month" -> b.month(source);
          default -> b.year(source);
        }
      } else {
        carry(b, table.schema().findColumnName(f.sourceId()), f);
      }
    }
    return b.build();
  }

  /** Re-declares a field the coarse spec keeps as it is, under its own name. */
  private static void carry(PartitionSpec.Builder b, String source, PartitionField f) {
    String t = f.transform().toString();
    if (t.equals("identity")) {
      b.identity(source, f.name());
    } else if (t.startsWith("bucket[")) {
      b.bucket(source, Integer.parseInt(t.substring(7, t.length() - 1)), f.name());
    } else if (t.startsWith("truncate[")) {
      b.truncate(source, Integer.parseInt(t.substring(9, t.length() - 1)), f.name());
    } else if (t.equals("year")) {
      b.year(source, f.name());
    } else if (t.equals("month")) {
      b.month(source, f.name());
    } else if (t.equals("day")) {
      b.day(source, f.name());
    } else if (t.equals("hour")) {
      b.hour(source, f.name());
    } else if (t.equals("void")) {
      b.alwaysNull(source, f.name());
    } else {
      throw new UsageException(
          "condense: cannot carry partition field " + f.name() + " with transform " + t);
    }
  }

  /**
   * The specs that are the default spec with one time field coarsened (what condensing adds, or an
   * older, coarser spec of the same shape): their files hold aged partitions on purpose.
   */
  public static Set<Integer> condensedSpecIds(Table table) {
    PartitionSpec fine = table.spec();
    Set<Integer> out = new java.util.TreeSet<>();
    for (PartitionSpec s : table.specs().values()) {
      if (s.specId() == fine.specId()
          || s.fields().size() != fine.fields().size()
          || s.isUnpartitioned()) {
        continue;
      }
      int coarsened = 0;
      boolean same = true;
      for (int i = 0; i < s.fields().size() && same; i++) {
        PartitionField a = s.fields().get(i);
        PartitionField f = fine.fields().get(i);
        if (a.sourceId() != f.sourceId()) {
          same = false;
        } else if (!a.transform().equals(f.transform())) {
          if (rank(a.transform().toString()) > rank(f.transform().toString())
              && rank(f.transform().toString()) > 0) {
            coarsened++;
          } else {
            same = false;
          }
        }
      }
      if (same && coarsened == 1) {
        out.add(s.specId());
      }
    }
    return out;
  }

  /** hour 1, day 2, month 3, year 4; 0 for anything else. */
  private static int rank(String transform) {
    return switch (transform) {
      case "hour" -> 1;
      case "day" -> 2;
      case "month" -> 3;
      case "year" -> 4;
      default -> 0;
    };
  }

  private static PartitionSpec findCoarse(
      Table table, PartitionSpec fine, PartitionField field, String transform) {
    for (PartitionSpec s : table.specs().values()) {
      if (s.specId() == fine.specId() || s.fields().size() != fine.fields().size()) {
        continue;
      }
      boolean matches = true;
      for (int i = 0; i < s.fields().size(); i++) {
        PartitionField a = s.fields().get(i);
        PartitionField f = fine.fields().get(i);
        boolean same = f.fieldId() == field.fieldId()
            ? a.sourceId() == f.sourceId() && a.transform().toString().equals(transform)
            : a.sourceId() == f.sourceId() && a.transform().equals(f.transform());
        matches &= same;
      }
      if (matches) {
        return s;
      }
    }
    return null;
  }

  /** Adds a spec through the table's metadata builder, leaving the default spec as it was. */
  private static PartitionSpec addSpecKeepingDefault(
      Table table, PartitionSpec spec, PartitionSpec fine, PartitionField field, String transform) {
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata base = ops.refresh();
    // UpdatePartitionSpec always makes its spec the default; the metadata builder can add one
    // without
    ops.commit(
        base,
        TableMetadata.buildFrom(base)
            .addPartitionSpec(freshCoarseFieldId(spec, fine, base.lastAssignedPartitionId()))
            .build());
    table.refresh();
    PartitionSpec added = findCoarse(table, fine, field, transform);
    if (added == null || table.spec().specId() != fine.specId()) {
      throw new IllegalStateException("the coarse spec was not added as a non-default spec");
    }
    return added;
  }

  /**
   * The spec with the ids partition fields must have: carried fields keep the fine spec's ids, the
   * coarse field (a new transform) gets the next unassigned id, as UpdatePartitionSpec would give it.
   * A reused id would name two different transforms, which core's partition statistics and every
   * reader that unifies partition types across specs refuse.
   */
  private static PartitionSpec freshCoarseFieldId(
      PartitionSpec spec, PartitionSpec fine, int lastAssignedPartitionId) {
    com.fasterxml.jackson.databind.node.ObjectNode json =
        com.fasterxml.jackson.databind.json.JsonMapper.builder().build().createObjectNode();
    json.put("spec-id", spec.specId());
    com.fasterxml.jackson.databind.node.ArrayNode fields = json.putArray("fields");
    for (PartitionField f : spec.fields()) {
      Integer carried = fine.fields().stream()
          .filter(g -> g.sourceId() == f.sourceId()
              && g.transform().toString().equals(f.transform().toString()))
          .map(PartitionField::fieldId)
          .findFirst()
          .orElse(null);
      fields
          .addObject()
          .put("name", f.name())
          .put("transform", f.transform().toString())
          .put("source-id", f.sourceId())
          .put("field-id", carried != null ? carried : lastAssignedPartitionId + 1);
    }
    return org.apache.iceberg.PartitionSpecParser.fromJson(spec.schema(), json.toString());
  }

  /** Live files of the fine spec by the coarse partition they go to, for coarse partitions old enough. */
  private static Map<String, Group> plan(
      Table table,
      PartitionSpec fine,
      int pos,
      PartitionSpec coarse,
      Granularity to,
      Duration olderThan) {
    long cutoffDay =
        LocalDateTime.now(ZoneOffset.UTC).minus(olderThan).toLocalDate().toEpochDay();
    Map<String, Group> groups = new LinkedHashMap<>();
    String fineTransform = fine.fields().get(pos).transform().toString();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.file().specId() != fine.specId()) {
          continue;
        }
        Integer value = task.file().partition().get(pos, Integer.class);
        if (value == null) {
          continue;
        }
        int coarseValue = coarsen(fineTransform, value, to);
        long endDay = endDay(to, coarseValue);
        // only whole coarse partitions entirely before the cutoff: new rows may still arrive in
        // younger ones
        if (endDay > cutoffDay) {
          continue;
        }
        PartitionData coarseData = new PartitionData(coarse.partitionType());
        for (int i = 0; i < coarse.fields().size(); i++) {
          coarseData.set(i, i == pos ? coarseValue : task.file().partition().get(i, Object.class));
        }
        String label = coarse.partitionToPath(coarseData);
        groups
            .computeIfAbsent(label, k -> new Group(coarseData, new ArrayList<>()))
            .tasks()
            .add(task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return groups;
  }

  /** A fine time value (hours, days or months since 1970) as the coarse one. */
  static int coarsen(String fineTransform, int value, Granularity to) {
    LocalDate day = switch (fineTransform) {
      case "hour" -> LocalDate.ofEpochDay(Math.floorDiv(value, 24));
      case "day" -> LocalDate.ofEpochDay(value);
      case "month" -> LocalDate.of(1970, 1, 1).plusMonths(value);
      default -> throw new IllegalArgumentException(fineTransform);
    };
    return switch (to) {
      case DAY -> (int) day.toEpochDay();
      case MONTH -> (day.getYear() - 1970) * 12 + day.getMonthValue() - 1;
      case YEAR -> day.getYear() - 1970;
    };
  }

  /** The first day after a coarse partition, as days since 1970. */
  static long endDay(Granularity to, int coarseValue) {
    return switch (to) {
      case DAY -> coarseValue + 1L;
      case MONTH -> LocalDate.of(1970, 1, 1).plusMonths(coarseValue + 1L).toEpochDay();
      case YEAR -> LocalDate.of(1970 + coarseValue + 1, 1, 1).toEpochDay();
    };
  }
}
