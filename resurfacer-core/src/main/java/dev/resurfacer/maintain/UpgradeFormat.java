package dev.resurfacer.maintain;

/**
 * Move an Iceberg table to format version {@code formatVersion} (metadata only; no data file is rewritten). A
 * policy never asks for it: a format upgrade changes which readers can open the table, so it is run by hand.
 */
public record UpgradeFormat(int formatVersion) implements Operation {
  @Override
  public String name() {
    return "upgrade";
  }

  @Override
  public int order() {
    return UPGRADE_FORMAT;
  }
}
