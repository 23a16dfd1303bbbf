package dev.resurfacer.delta.scan;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.data.Row;
import java.util.List;
import java.util.Optional;

/**
 * A deletion vector as the log describes it.
 *
 * @param storageType {@code u} (file named by UUID under the table), {@code p} (absolute path) or {@code i} (inline)
 * @param cardinality the number of rows it deletes
 * @param identities every file its path can name ({@link TableStorage#resolveAll}), the one read first; empty for inline vectors
 */
public record DeletionVectorRef(
    String storageType,
    String pathOrInlineDv,
    Integer offset,
    int sizeInBytes,
    long cardinality,
    List<StoredFile> identities) {
  public DeletionVectorRef {
    identities = List.copyOf(identities);
  }

  /** The file holding it as Delta's readers open it, empty for inline vectors. */
  public Optional<StoredFile> file() {
    return identities.stream().findFirst();
  }

  /** Reads the log's {@code deletionVector} struct; empty when it is null. */
  public static Optional<DeletionVectorRef> of(Row parent, int ordinal, TableStorage paths) {
    if (ordinal < 0 || parent.isNullAt(ordinal)) {
      return Optional.empty();
    }
    Row dv = parent.getStruct(ordinal);
    String type = Rows.string(dv, "storageType");
    String ref = Rows.string(dv, "pathOrInlineDv");
    Long offset = Rows.longOrNull(dv, "offset");
    Long size = Rows.longOrNull(dv, "sizeInBytes");
    Long cardinality = Rows.longOrNull(dv, "cardinality");
    List<StoredFile> files = switch (type) {
      case "u" -> paths.resolveAll(KernelInternals.uuidDeletionVectorRelativePath(ref));
      case "p" -> paths.resolveAll(ref);
      case "i" -> List.of();
      default ->
        throw new dev.resurfacer.SafetyRefusal(
            "unknown deletion vector storage type '" + type + "'");
    };
    return Optional.of(new DeletionVectorRef(
        type,
        ref,
        offset == null ? null : offset.intValue(),
        size == null ? 0 : size.intValue(),
        cardinality == null ? 0 : cardinality,
        files));
  }
}
