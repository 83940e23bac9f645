/**
 * The reference attachment service: images as owner-only files named by their digest, indexed in a
 * storage domain, handed out by opaque refs; an image over the byte budget or one that does not
 * decode is refused.
 */
package dev.periscope.attachments;
