package dev.resurfacer.storage;

/** Azure storage endpoints, for the code of either format that reaches ADLS Gen2 through the Blob API. */
public final class AzureEndpoints {
  private AzureEndpoints() {}

  /** The Blob endpoint of a Data Lake URL: the SDK's own rule, {@code .dfs.} in the host becomes {@code .blob.}. */
  public static String blob(String fileSystemUrl) {
    int hostStart = fileSystemUrl.indexOf("://") + 3;
    int hostEnd = fileSystemUrl.indexOf('/', hostStart);
    String host = hostEnd < 0
        ? fileSystemUrl.substring(hostStart)
        : fileSystemUrl.substring(hostStart, hostEnd);
    String rest = hostEnd < 0 ? "" : fileSystemUrl.substring(hostEnd);
    return fileSystemUrl.substring(0, hostStart) + host.replace(".dfs.", ".blob.") + rest;
  }
}
