package dev.resurfacer;

/**
 * A safety fence refused to act (exit code 3). The message says which fence and why; nothing has
 * been deleted or committed by the refused operation.
 */
public class SafetyRefusal extends RuntimeException {
  public SafetyRefusal(String message) {
    super(message);
  }
}
