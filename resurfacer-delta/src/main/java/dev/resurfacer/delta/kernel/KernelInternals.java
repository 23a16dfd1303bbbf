package dev.resurfacer.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.internal.actions.Protocol;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one place that touches Delta Kernel's internal classes, pinned to Kernel {@value #PINNED}.
 * Kernel's public API stops short of what maintenance needs (the protocol's table features, the
 * file a deletion vector lives in, remove actions, {@code dataChange=false} adds, the OPTIMIZE
 * operation name); everything that needs it goes through here, and {@code KernelInternalsTest}
 * fails when a Kernel upgrade moves these internals.
 */
public final class KernelInternals {
  public static final String PINNED = "4.4.0";

  private KernelInternals() {}

  /** A table's protocol: reader and writer versions and the named table features. */
  public record TableProtocol(int minReaderVersion, int minWriterVersion, Set<String> readerFeatures, Set<String> writerFeatures) {
    public TableProtocol {
      readerFeatures = Set.copyOf(readerFeatures);
      writerFeatures = Set.copyOf(writerFeatures);
    }
  }

  public static TableProtocol protocol(Snapshot snapshot) {
    Protocol p = snapshot.getProtocol();
    return new TableProtocol(p.getMinReaderVersion(), p.getMinWriterVersion(),
        new TreeSet<>(p.getReaderFeatures()), new TreeSet<>(p.getWriterFeatures()));
  }

  /**
   * For a deletion vector stored by UUID ({@code storageType u}), its file relative to the table
   * root: the optional random prefix directory, then {@code deletion_vector_<uuid>.bin}.
   */
  public static String uuidDeletionVectorRelativePath(String pathOrInlineDv) {
    int prefixLength = pathOrInlineDv.length() - 20;
    if (prefixLength < 0) {
      throw new IllegalArgumentException("not a UUID deletion vector reference: " + pathOrInlineDv);
    }
    String prefix = pathOrInlineDv.substring(0, prefixLength);
    String name = "deletion_vector_" + Base85Codec.decodeUUID(pathOrInlineDv.substring(prefixLength)) + ".bin";
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }
}
