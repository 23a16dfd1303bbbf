package dev.resurfacer.delta.compact;

import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.util.List;

/**
 * Rewrites one bin's live rows into new files in the bin's partition directory, each with the
 * stats Kernel's writer gives its own files, and adds the rows it read through Kernel (deletion
 * vectors applied) to the input fingerprint the compactor checks the output against.
 */
sealed interface BinRunner permits KernelBinRunner, DuckDbBinRunner {
  String name();

  List<DataFileStatus> write(BinWork work, CompactionPlan.Bin bin, ContentFingerprint input) throws IOException;
}
