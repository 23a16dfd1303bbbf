package dev.resurfacer.maintain;

/** {@code PREVIEW} computes what each operation would do and changes nothing; {@code COMMIT} acts. */
public enum Mode {
  PREVIEW,
  COMMIT
}
