package dev.resurfacer.iceberg.orphans;

/** The places Iceberg metadata points at files. */
enum Category {
  METADATA_JSON("metadata.json", true),
  MANIFEST_LIST("manifest lists", true),
  MANIFEST("manifests", true),
  DATA("data files", true),
  DELETE("delete files", false),
  STATISTICS("statistics files", false),
  PARTITION_STATISTICS("partition statistics files", false),
  VERSION_HINT("version hint", false);

  final String label;
  /** Every table with a snapshot has at least one of these; none means the walk went wrong. */
  final boolean requiredWithSnapshots;

  Category(String label, boolean requiredWithSnapshots) {
    this.label = label;
    this.requiredWithSnapshots = requiredWithSnapshots;
  }

  /** The category of a file the metadata walk found (same names). */
  static Category of(dev.resurfacer.iceberg.metadata.MetadataWalker.Kind kind) {
    return valueOf(kind.name());
  }
}
