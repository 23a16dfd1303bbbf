package dev.resurfacer;

/**
 * Bad input from the user: a malformed flag, an unknown table, a broken configuration. The CLI
 * prints the message as one line and exits with code 2; nothing has been changed.
 */
public class UsageException extends RuntimeException {
  public UsageException(String message) {
    super(message);
  }

  public UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
