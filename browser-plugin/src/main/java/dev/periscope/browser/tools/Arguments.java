package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A call's arguments, read by type. A value of the wrong type is {@code BROWSER_INVALID_ARGUMENT}
 * naming the field; bounds are the schema's (checked by the host) and the action's own (checked by
 * the runtime).
 */
record Arguments(Map<String, Object> values) {
  String string(String field) {
    Object v = values.get(field);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw invalid("/" + field + ": a non-empty string is required");
    }
    return s;
  }

  /** A string that may be empty. */
  String text(String field) {
    if (!(values.get(field) instanceof String s)) {
      throw invalid("/" + field + ": a string is required");
    }
    return s;
  }

  /** An optional string that may be empty, or null. */
  String optionalText(String field) {
    Object v = values.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s)) {
      throw invalid("/" + field + ": a string is expected");
    }
    return s;
  }

  /** An optional non-empty string, or null. */
  String optionalString(String field) {
    Object v = values.get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s) || s.isEmpty()) {
      throw invalid("/" + field + ": a non-empty string is expected");
    }
    return s;
  }

  boolean bool(String field) {
    if (!(values.get(field) instanceof Boolean b)) {
      throw invalid("/" + field + ": a boolean is required");
    }
    return b;
  }

  boolean optionalBool(String field, boolean fallback) {
    Object v = values.get(field);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Boolean b)) {
      throw invalid("/" + field + ": a boolean is expected");
    }
    return b;
  }

  double number(String field, double fallback) {
    Object v = values.get(field);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Number n)) {
      throw invalid("/" + field + ": a number is required");
    }
    return n.doubleValue();
  }

  /**
   * An optional integer within [min, max], or {@code BROWSER_INVALID_ARGUMENT} naming the bound.
   */
  Optional<Integer> integer(String field, int min, int max) {
    Object v = values.get(field);
    if (v == null) {
      return Optional.empty();
    }
    if (!(v instanceof Number n)
        || n.doubleValue() != Math.rint(n.doubleValue())
        || n.doubleValue() < min
        || n.doubleValue() > max) {
      throw invalid(
          "/"
              + field
              + ": an integer from "
              + min
              + " to "
              + max
              + " is required (found "
              + v
              + ")");
    }
    return Optional.of(n.intValue());
  }

  List<String> strings(String field) {
    if (!(values.get(field) instanceof List<?> list)
        || list.stream().anyMatch(v -> !(v instanceof String))) {
      throw invalid("/" + field + ": a list of strings is required");
    }
    return list.stream().map(String.class::cast).toList();
  }

  Optional<List<String>> optionalStrings(String field) {
    return values.get(field) == null ? Optional.empty() : Optional.of(strings(field));
  }

  private static BrowserException invalid(String message) {
    return new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, message);
  }
}
