package dev.periscope.api.browser.spi;

/**
 * A line of an observation's text (numbered from 0, split at {@code \n}) that is the own text of a
 * listed element ({@code target}) or of a listed record ({@code recordKey}), so that whoever shows
 * the observation can show a ref in its place instead of the same words twice. An element's line
 * carries the element's record too, when it has one; either may be null. Since host API 2.7.0.
 *
 * <p>Immutable and thread-safe.
 */
public record ProviderTextLine(int line, String target, String recordKey) {}
