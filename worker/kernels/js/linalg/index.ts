/** The js reference linear-algebra kernels (docs/linalg.md). */
export { LinalgError } from './dense';
export { matmul } from './matmul';
export { transpose } from './transpose';
export { qr } from './qr';
export { qrBlock, qrBlockFactor, stackR, splitRows, combineQ, combineFactor, tsqr } from './tsqr';
export { svd, type Svd } from './svd';
export { svdOfR, svdTsqr, rowBlocks } from './svd-tall';
export { gaussianTestMatrix, orthonormalize, powerIteration, svdOfProjection, randomizedSvd, type RandomizedSvdOptions } from './randomized';
