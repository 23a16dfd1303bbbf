package dev.resurfacer.delta.compact;

import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.util.List;

/**
 * Rewrites one bin's live rows into new files in the bin's partition directory, each with the
 * stats Kernel's writer gives its own files. The compactor fingerprints the input by its own read
 * meanwhile ({@link ContentFingerprint#ofInput}) and checks the output against it.
 */
sealed interface BinRunner permits KernelBinRunner, DuckDbBinRunner {
  String name();

  List<DataFileStatus> write(BinWork work, CompactionPlan.Bin bin) throws IOException;
}
