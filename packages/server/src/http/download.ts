/**
 * The headers of a stored file's download: its name (RFC 6266 / RFC 5987, any character), and
 * `nosniff`, so a browser takes the stored content type as it is (a file is the caller's content,
 * served from the API's origin).
 */
export const downloadHeaders = (filename: string) => ({
  "content-disposition": `attachment; filename*=UTF-8''${
    encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  }`,
  "x-content-type-options": "nosniff"
})
