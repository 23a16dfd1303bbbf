package dev.resurfacer.iceberg.orphans;

import java.util.List;

/**
 * What a restore of one quarantine run did (or, in a preview, would do).
 *
 * @param restored true when files were moved back
 * @param alreadyBack files already at their original location (an earlier, interrupted restore)
 * @param conflicts files left in the quarantine because their original location is taken again
 */
public record RestoreReport(
    String table,
    String runId,
    boolean restored,
    long files,
    long bytes,
    long alreadyBack,
    List<String> conflicts) {}
