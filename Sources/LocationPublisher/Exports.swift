// HTTPLogin and HTTPTLSFiles (HTTPClient) come with the HTTP destination, as they always have:
// it takes them.
@_exported import HTTPClient
