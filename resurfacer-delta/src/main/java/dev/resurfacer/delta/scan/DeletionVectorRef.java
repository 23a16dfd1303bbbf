package dev.resurfacer.delta.scan;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.data.Row;
import java.util.Optional;

/**
 * A deletion vector as the log describes it.
 *
 * @param storageType {@code u} (file named by UUID under the table), {@code p} (absolute path) or {@code i} (inline)
 * @param file the file holding it, empty for inline vectors
 * @param cardinality the number of rows it deletes
 */
public record DeletionVectorRef(String storageType, String pathOrInlineDv, Integer offset, int sizeInBytes, long cardinality,
    Optional<StoredFile> file) {

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
    Optional<StoredFile> file = switch (type) {
      case "u" -> Optional.of(paths.resolve(KernelInternals.uuidDeletionVectorRelativePath(ref)));
      case "p" -> Optional.of(paths.resolve(ref));
      case "i" -> Optional.empty();
      default -> throw new dev.resurfacer.SafetyRefusal("unknown deletion vector storage type '" + type + "'");
    };
    return Optional.of(new DeletionVectorRef(type, ref, offset == null ? null : offset.intValue(),
        size == null ? 0 : size.intValue(), cardinality == null ? 0 : cardinality, file));
  }
}
