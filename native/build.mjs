// Placeholder: the native addon build (filled in by the native compute work).
console.log('gpuflow: native addon not built yet');
