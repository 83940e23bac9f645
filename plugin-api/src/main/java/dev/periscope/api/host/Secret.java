package dev.periscope.api.host;

import java.util.Arrays;

/**
 * A secret value. Its {@code toString}, {@code equals} and {@code hashCode} never reveal or derive from the
 * value, it is not {@link java.io.Serializable}, and the only way to read it is {@link #reveal()}, which the
 * browser plugin calls once, at the moment it fills a field.
 */
public final class Secret {
  private final char[] value;

  private Secret(char[] value) {
    this.value = value;
  }

  public static Secret of(String value) {
    return new Secret(value.toCharArray());
  }

  public static Secret of(char[] value) {
    return new Secret(Arrays.copyOf(value, value.length));
  }

  public String reveal() {
    return new String(value);
  }

  public int length() {
    return value.length;
  }

  public boolean isEmpty() {
    return value.length == 0;
  }

  @Override
  public String toString() {
    return "Secret[redacted]";
  }
}
