// The C surface of libxml2 (Debian libxml2-dev 2.9.14) that the GPX and TCX readers use: the SAX2
// push parser (fed by GZipFiles' zlib reader, which reads plain and gzip-compressed files alike).
//
// Macros and struct fields Swift cannot reach comfortably become small static inline helpers,
// prefixed clibxml2_. Only Sources/GPX/Internal/LibXML2.swift imports this module.
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

/// A push parser with the options the reader needs: no network, no DTD loading, no entity
/// substitution (none of XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_HUGE).
/// `chunk` (at least 4 bytes when the input has them) lets libxml2 detect the encoding.
static inline xmlParserCtxtPtr clibxml2_create_push(xmlSAXHandler *handler, void *user,
                                                    const char *chunk, int size, const char *filename) {
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(handler, user, chunk, size, filename);
    if (ctxt != NULL) {
        xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOCDATA);
    }
    return ctxt;
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
