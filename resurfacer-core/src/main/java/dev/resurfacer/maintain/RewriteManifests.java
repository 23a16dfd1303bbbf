package dev.resurfacer.maintain;

import java.util.List;

/**
 * Regroup data manifests by partition so filtered scans open fewer of them (metadata only).
 *
 * @param sortBy partition field names to cluster by, in order (policy {@code rewrite-manifests.sort-by},
 *     CLI {@code --sort-by}); empty for the whole partition
 */
public record RewriteManifests(List<String> sortBy) implements Operation {
  public RewriteManifests {
    sortBy = List.copyOf(sortBy);
  }

  public RewriteManifests() {
    this(List.of());
  }

  @Override
  public String name() {
    return "rewrite-manifests";
  }

  @Override
  public int order() {
    return REWRITE_MANIFESTS;
  }

  @Override
  public java.util.Set<String> givenSettings() {
    return sortBy.isEmpty() ? java.util.Set.of() : java.util.Set.of("sort-by");
  }
}
