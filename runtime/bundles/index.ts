// Public surface of the bundle format: read (tarball or directory), write,
// sign, verify, roots and manifest helpers, and the typed BundleError.
export type { Bundle, BundleManifest, BundleModule, BundlePatchOperation } from './types.js';
export { BundleError, type BundleErrorKind } from './errors.js';
export { readBundle, extractTarGz, type ArchiveOptions } from './read.js';
export { readBundleDir, directoryFiles, type DirectoryOptions } from './read-dir.js';
export { loadBundleFiles, normalizeBundlePath, validateManifest, DEFAULT_SIZE_LIMIT_BYTES, type BundleFile, type ReadOptions } from './load.js';
export { writeBundle, bundleEntries, tarEntries } from './write.js';
export { signBundle, signFiles, bundleFileInfos, type SigningOptions } from './sign.js';
export {
  verifyBundleSignature,
  verifyBundleFile,
  parseSignatures,
  type FileInfo,
  type SignaturesConfig,
  type VerificationConfig,
} from './verify.js';
export { SIGNATURE_ALGORITHMS, DEFAULT_SIGNATURE_ALGORITHM, checkAlgorithm, type KeyConfig, type SignatureAlgorithm } from './keys.js';
export { hashBundleFile, hashValue, hashBytes, isSupportedHashAlgorithm } from './hash.js';
export { parseManifest, manifestIsEmpty, manifestToJSON, regoVersionForFile, globToRegExp } from './manifest.js';
export { scanPackage, formatPackage } from './package-scan.js';
export { rootPathsOverlap, rootPathsContain, normalizeRoots, checkManifestRoots, checkRootsConflict, pathOwnedByBundle, ownerOf } from './roots.js';
export { applyBundlePatch } from './patch.js';
