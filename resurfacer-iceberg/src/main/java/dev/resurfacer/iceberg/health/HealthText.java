package dev.resurfacer.iceberg.health;

import java.time.Duration;

/** The one-screen text form of {@link TableHealth}. */
final class HealthText {
  private HealthText() {}

  static String render(TableHealth h) {
    StringBuilder b = new StringBuilder();
    line(b, "table", h.table() + "  (format v" + h.formatVersion() + ")");
    line(b, "location", h.location());
    line(b, "partition specs", String.join("; ", h.partitionSpecs()) + "  (default " + h.defaultSpecId() + ")");
    line(b, "sort orders", String.join("; ", h.sortOrders()));
    line(b, "refs", h.refs().isEmpty() ? "none"
        : String.join(", ", h.refs().stream().map(r -> r.name() + " (" + r.type() + ")").toList()));
    line(b, "snapshots", h.snapshots() + (h.snapshots() == 0 ? ""
        : "  (oldest " + age(h.oldestSnapshotAgeMs()) + " ago, newest " + age(h.newestSnapshotAgeMs()) + " ago)"));
    line(b, "data files", h.dataFiles() + " files, " + bytes(h.dataBytes()) + ", " + h.dataRecords() + " records, avg "
        + bytes(h.averageDataFileBytes()));
    line(b, "small files", h.smallDataFiles() + " below 75% of the " + bytes(h.targetFileSizeBytes()) + " target");
    long maxFiles = h.sizeHistogram().stream().mapToLong(TableHealth.SizeBucket::files).max().orElse(0);
    for (TableHealth.SizeBucket bucket : h.sizeHistogram()) {
      int bar = maxFiles == 0 ? 0 : (int) Math.ceil(30.0 * bucket.files() / maxFiles);
      b.append(String.format(java.util.Locale.ROOT, "  %14s  %-30s %d%n", bucket.label(), "#".repeat(bar), bucket.files()));
    }
    line(b, "delete files", h.deleteFiles() + " files, " + bytes(h.deleteBytes()));
    line(b, "  position", h.positionDeleteFiles() + " files, " + h.positionDeleteRecords() + " records");
    line(b, "  deletion vectors", h.deletionVectors() + " vectors, " + h.deletionVectorRecords() + " records");
    line(b, "  equality", h.equalityDeleteFiles() + " files, " + h.equalityDeleteRecords() + " records");
    line(b, "manifests", h.manifests() + " (" + h.dataManifests() + " data, " + h.deleteManifests() + " delete), "
        + bytes(h.manifestBytes()));
    line(b, "metadata.json", h.metadataFiles() + " in the log, "
        + (h.metadataFilesOnDisk() < 0 ? "unknown" : String.valueOf(h.metadataFilesOnDisk())) + " on disk");
    line(b, "metadata bytes", h.metadataBytes() < 0 ? "unknown"
        : bytes(h.metadataBytes()) + " (" + ratio(h.metadataBytes(), h.dataBytes()) + " of data bytes)");
    line(b, "properties", h.maintenanceProperties().isEmpty() ? "(defaults)" : h.maintenanceProperties().toString());
    line(b, "statistics", h.statistics().isEmpty() ? "none" : h.statistics().size() + " files");
    for (TableHealth.Statistics st : h.statistics()) {
      b.append(String.format(java.util.Locale.ROOT, "  %-9s snapshot %d%s, %s, %s%n", st.kind(), st.snapshotId(),
          st.current() ? " (current)" : "", bytes(st.bytes()), st.path()));
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
    return ms == null ? "-" : dev.resurfacer.units.Durations.humanAge(Duration.ofMillis(Math.max(0, ms)));
  }

  private static String ratio(long part, long whole) {
    return whole == 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }
}
