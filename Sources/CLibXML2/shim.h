// The C surface of libxml2 (Debian libxml2-dev 2.9.14) that the GPX and TCX readers use: the SAX2
// push parser (fed by GZipFiles' zlib reader, which reads plain and gzip-compressed files alike).
//
// Macros and struct fields Swift cannot reach comfortably become small static inline helpers,
// prefixed clibxml2_, which call none of libxml2's functions: the reader finds those with
// dlopen(3) when it makes its first parser (Sources/GPX/Internal/LibXML2.swift, the only file that
// imports this module), so that a program that reads no XML does not load libxml2 at start.
#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, so encoding.h would include ICU's unicode/ucnv.h, whose enums
// clash with the ICU copy inside Foundation (_FoundationICU) in the same Swift module. The reader
// never touches the ICU converter fields of xmlCharEncodingHandler (only pointers to it), so the
// ICU part of the headers is left out; the library itself is unchanged.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <string.h>

/// Structured error handler that drops the message: the reader reports errors itself, from
/// xmlCtxtGetLastError(3), so nothing reaches standard error.
static void clibxml2_ignore_error(void *data, xmlErrorPtr error) {
    (void)data;
    (void)error;
}

/// Prepares `handler` for SAX2 (namespaces, structured errors) with every callback cleared.
static inline void clibxml2_init_handler(xmlSAXHandler *handler) {
    memset(handler, 0, sizeof(*handler));
    handler->initialized = XML_SAX2_MAGIC;
    handler->serror = clibxml2_ignore_error;
}

/// The line the parser has reached (from 1), or 0.
static inline int clibxml2_line(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->line : 0;
}

/// The column the parser has reached (from 1), or 0.
static inline int clibxml2_column(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->col : 0;
}

#endif
