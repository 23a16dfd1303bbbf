package dev.resurfacer.maintain;

/** Another run holds the table's maintenance lease; this run skips the table. */
public class LeaseHeld extends RuntimeException {
  public LeaseHeld(String message) {
    super(message);
  }
}
