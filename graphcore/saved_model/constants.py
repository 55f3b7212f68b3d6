"""SavedModel's file and collection names (TF's ``saved_model.constants``)."""

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
# The type URL of AssetFileDefs packed in the assets collection: TF's message name, which
# TF's loader checks when it unpacks them (graphcore's protos live in package graphcore).
ASSET_FILE_DEF_TYPE_URL = "type.googleapis.com/tensorflow.AssetFileDef"
