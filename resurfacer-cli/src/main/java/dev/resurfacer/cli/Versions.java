package dev.resurfacer.cli;

import picocli.CommandLine;

/** Versions of Resurfacer and the libraries it is built on. */
final class Versions implements CommandLine.IVersionProvider {
  static String resurfacer() {
    String v = Main.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }

  static String iceberg() {
    return org.apache.iceberg.IcebergBuild.version();
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "resurfacer " + resurfacer(),
      "iceberg " + iceberg(),
      "java " + System.getProperty("java.version")
    };
  }
}
