// The AWS SDK warns once per process that its 2027 releases will need Node 22; the tests run on the project's Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
