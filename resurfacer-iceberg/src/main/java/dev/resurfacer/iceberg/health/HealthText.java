package dev.resurfacer.iceberg.health;

import java.time.Duration;

/** The one-screen text form of {@link TableHealth}. */
final class HealthText {
  private HealthText() {}

  static String render(TableHealth h) {
    TableHealth.Layout layout = h.layout();
    TableHealth.History history = h.history();
    TableHealth.DataFiles data = h.data();
    TableHealth.Deletes deletes = h.deletes();
    TableHealth.Manifests manifests = h.manifests();
    TableHealth.Metadata metadata = h.metadata();
    StringBuilder b = new StringBuilder();
    line(b, "table", h.table() + "  (format v" + layout.formatVersion() + ")");
    line(b, "location", h.location());
    line(
        b,
        "partition specs",
        String.join("; ", layout.partitionSpecs()) + "  (default " + layout.defaultSpecId() + ")");
    line(b, "sort orders", String.join("; ", layout.sortOrders()));
    line(
        b,
        "refs",
        history.refs().isEmpty()
            ? "none"
            : String.join(
                ", ",
                history.refs().stream()
                    .map(r -> r.name() + " (" + r.type() + ")")
                    .toList()));
    line(
        b,
        "snapshots",
        history.snapshots()
            + (history.snapshots() == 0
                ? ""
                : "  (oldest " + age(history.oldestSnapshotAgeMs()) + " ago, newest "
                    + age(history.newestSnapshotAgeMs()) + " ago)"));
    line(
        b,
        "data files",
        data.dataFiles() + " files, " + bytes(data.dataBytes()) + ", " + data.dataRecords()
            + " records, avg " + bytes(data.averageDataFileBytes()));
    line(
        b,
        "small files",
        data.smallDataFiles() + " below 75% of the " + bytes(data.targetFileSizeBytes())
            + " target");
    long maxFiles = data.sizeHistogram().stream()
        .mapToLong(TableHealth.SizeBucket::files)
        .max()
        .orElse(0);
    for (TableHealth.SizeBucket bucket : data.sizeHistogram()) {
      int bar = maxFiles == 0 ? 0 : (int) Math.ceil(30.0 * bucket.files() / maxFiles);
      b.append(String.format(
          java.util.Locale.ROOT,
          "  %14s  %-30s %d%n",
          bucket.label(),
          "#".repeat(bar),
          bucket.files()));
    }
    line(b, "delete files", deletes.deleteFiles() + " files, " + bytes(deletes.deleteBytes()));
    line(
        b,
        "  position",
        deletes.positionDeleteFiles() + " files, " + deletes.positionDeleteRecords() + " records");
    line(
        b,
        "  deletion vectors",
        deletes.deletionVectors() + " vectors, " + deletes.deletionVectorRecords() + " records");
    line(
        b,
        "  equality",
        deletes.equalityDeleteFiles() + " files, " + deletes.equalityDeleteRecords() + " records");
    line(
        b,
        "manifests",
        manifests.manifests() + " (" + manifests.dataManifests() + " data, "
            + manifests.deleteManifests() + " delete), " + bytes(manifests.manifestBytes()));
    line(
        b,
        "metadata.json",
        metadata.metadataFiles() + " in the log, "
            + (metadata.metadataFilesOnDisk() < 0
                ? "unknown"
                : String.valueOf(metadata.metadataFilesOnDisk()))
            + " on disk");
    line(
        b,
        "metadata bytes",
        metadata.metadataBytes() < 0
            ? "unknown"
            : bytes(metadata.metadataBytes()) + " ("
                + ratio(metadata.metadataBytes(), data.dataBytes()) + " of data bytes)");
    line(
        b,
        "properties",
        h.maintenanceProperties().isEmpty()
            ? "(defaults)"
            : h.maintenanceProperties().toString());
    line(b, "statistics", h.statistics().isEmpty() ? "none" : h.statistics().size() + " files");
    for (TableHealth.Statistics st : h.statistics()) {
      b.append(String.format(
          java.util.Locale.ROOT,
          "  %-9s snapshot %d%s, %s, %s%n",
          st.kind(),
          st.snapshotId(),
          st.current() ? " (current)" : "",
          bytes(st.bytes()),
          st.path()));
      st.blobs().forEach(blob -> b.append("    ").append(blob).append(System.lineSeparator()));
    }
    return b.toString().stripTrailing();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append(String.format(java.util.Locale.ROOT, "%-18s %s%n", label, value));
  }

  private static String bytes(long n) {
    return dev.resurfacer.units.ByteSizes.format(n);
  }

  private static String age(Long ms) {
    return ms == null
        ? "-"
        : dev.resurfacer.units.Durations.humanAge(Duration.ofMillis(Math.max(0, ms)));
  }

  private static String ratio(long part, long whole) {
    return whole == 0
        ? "n/a"
        : String.format(java.util.Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }
}
