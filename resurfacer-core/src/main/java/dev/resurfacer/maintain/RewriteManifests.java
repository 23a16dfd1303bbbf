package dev.resurfacer.maintain;

/** Regroup data manifests by partition so filtered scans open fewer of them (metadata only). */
public record RewriteManifests() implements Operation {
  @Override
  public String name() {
    return "rewrite-manifests";
  }

  @Override
  public int order() {
    return REWRITE_MANIFESTS;
  }
}
